//! Every move the Rescue Khan seed text describes, played from a suitable
//! position under the standard Rescue Khan rules (KR-7, KR-8).

use super::support::{RESCUE_KHAN, play, play_all, refused, ruleset, text};
use crate::khan::{Captive, CaptiveAt, Event, Kind, Piece, Position, Side};

use super::support::sq;

const WK: Captive = Captive::Khan(Side::White);
const BK: Captive = Captive::Khan(Side::Black);

/// A position under the standard Rescue Khan ruleset.
fn rescue(pieces: &str, turn: char, siege: &str) -> Position {
    let rules = ruleset("rescue-khan").rules;
    Position::from_yam(&text(pieces, turn, siege), rules).unwrap_or_else(|e| panic!("{e}"))
}

/// The seed's battlefield: power magicians on f5 and c5 within range of the
/// towers, a white warrior on f4, a white archer on b3, a black warrior on f6.
fn battlefield() -> Position {
    rescue("Fg1 Hf5 Wf4 Ab3 fb8 hc5 wf6", 'w', RESCUE_KHAN)
}

#[test]
fn spells_f5_on_h5_and_c5_on_a3_then_pickups_f4_h5_and_c3_a3() {
    let p = battlefield();
    let a = play(&p, "Hf5*h5");
    assert!(a.events.contains(&Event::Silenced { square: sq("h5") }));
    let b = play(&a.position, "Hc5*a3");
    assert!(b.events.contains(&Event::Silenced { square: sq("a3") }));
    let c = play(&b.position, "Wf4-h5");
    assert_eq!(
        c.events,
        [Event::PickedUp {
            captive: WK,
            square: sq("h5")
        }]
    );
    let p = play_all(&c.position, "Hc5-c3 Fg1-f1");
    let d = play(&p, "Hc3-a3");
    assert_eq!(
        d.events,
        [Event::PickedUp {
            captive: BK,
            square: sq("a3")
        }]
    );
    assert_eq!(d.position.carried_by(sq("h5")), Some(WK));
    assert_eq!(d.position.carried_by(sq("a3")), Some(BK));
    // Before the spell the same walk was a death (KR-7.1).
    let e = play(&battlefield(), "Wf4-h5");
    assert!(matches!(e.events[0], Event::DiedInTower { .. }));
}

#[test]
fn picking_up_the_enemy_captive() {
    let p = play_all(&battlefield(), "Hf5*h5 Hc5*a3");
    let a = play(&p, "Ab3-a3");
    assert_eq!(
        a.position.carried_by(sq("a3")),
        Some(BK),
        "White's archer holds Black's khan"
    );
    let b = play(&a.position, "Wf6-h5");
    assert_eq!(
        b.position.carried_by(sq("h5")),
        Some(WK),
        "Black's warrior holds White's khan"
    );
}

#[test]
fn transfers_e2_to_d1_d2_d3_and_c5_to_b6_d5() {
    let siege = "towers=h5h6h7,a2a3a4 manned=a2a4h5h6h7 gers=a1:w,h8:b carried=c5:bk,e2:wk";
    let pieces = "Ae2 Ad1 Wd2 Sd3 Fg1 hc5 nb6 ad5 fb8";
    let w = rescue(pieces, 'w', siege);
    for to in ["d1", "d2", "d3"] {
        let a = play(&w, &format!("Ae2>{to}"));
        assert_eq!(
            a.events,
            [Event::Transferred {
                captive: WK,
                from: sq("e2"),
                to: sq(to)
            }]
        );
        assert_eq!(a.position.carried_by(sq(to)), Some(WK));
        assert_eq!(a.position.carried_by(sq("e2")), None);
    }
    let b = rescue(pieces, 'b', siege);
    for to in ["b6", "d5"] {
        let a = play(&b, &format!("Hc5>{to}"));
        assert_eq!(a.position.carried_by(sq(to)), Some(BK));
    }
    refused(
        &b,
        "Hc5>d4",
        "there is no friendly piece on d4 to take the captive",
    );
}

#[test]
fn drop_offs_b2_a1_and_f7_h8_then_releases_a1_c2_and_h8_h7() {
    let siege = "towers=h5h6h7,a2a3a4 manned=a2a4h5h6h7 gers=a1:w,h8:b carried=b2:wk,f7:bk";
    let p = rescue("Wb2 Fg1 hf7 fb8", 'w', siege);
    let a = play(&p, "Wb2-a1");
    assert_eq!(
        a.events,
        [Event::DroppedOff {
            captive: WK,
            ger: sq("a1")
        }]
    );
    // The power magician's knight-shaped step (KR-3.5).
    let b = play(&a.position, "Hf7-h8");
    assert_eq!(
        b.events,
        [Event::DroppedOff {
            captive: BK,
            ger: sq("h8")
        }]
    );
    assert_eq!(b.position.captive(WK), Some(CaptiveAt::Waiting(sq("a1"))));
    let c = play(&b.position, "Wa1-c2");
    assert_eq!(
        c.events,
        [Event::Released {
            captive: WK,
            square: sq("a1")
        }]
    );
    assert_eq!(
        c.position.piece_at(sq("a1")),
        Some(Piece::new(Side::White, Kind::Khan))
    );
    // h7 is still manned: the magician stands there unharmed.
    let d = play(&c.position, "Hh8-h7");
    assert_eq!(
        d.events,
        [Event::Released {
            captive: BK,
            square: sq("h8")
        }]
    );
    assert_eq!(
        d.position.piece_at(sq("h8")),
        Some(Piece::new(Side::Black, Kind::Khan))
    );
    assert_eq!(
        d.position.piece_at(sq("h7")),
        Some(Piece::new(Side::Black, Kind::PowerMagician))
    );
    // Both khans are back: two leaders a side again, nobody royal.
    assert_eq!(d.position.royal(Side::White), None);
    assert_eq!(d.position.outcome(), None);
}

#[test]
fn capture_rule_1_a_carrier_of_its_own_khan_takes_a_carrier_of_theirs() {
    let siege = "towers=h5h6h7,a2a3a4 manned=a2a3a4h5h6h7 gers=a1:w,h8:b carried=d4:wk,e5:bk";
    let p = rescue("Wd4 Fg1 ae5 fb8", 'w', siege);
    let a = play(&p, "Wd4xe5");
    assert!(a.events.contains(&Event::CaptiveDied {
        captive: BK,
        square: sq("e5")
    }));
    assert_eq!(
        a.position.carried_by(sq("e5")),
        Some(WK),
        "it keeps its own captive"
    );
    assert_eq!(a.position.captive(BK), None);
}

#[test]
fn capture_rule_2_a_carrier_of_their_khan_takes_back_its_own() {
    let siege = "towers=h5h6h7,a2a3a4 manned=a2a3a4h5h6h7 gers=a1:w,h8:b carried=d4:bk,e5:wk";
    let p = rescue("Ad4 Fg1 we5 fb8", 'b', siege);
    let a = play(&p, "We5xd4");
    assert!(a.events.contains(&Event::TookOver {
        captive: BK,
        square: sq("d4")
    }));
    assert!(a.events.contains(&Event::CaptiveDied {
        captive: WK,
        square: sq("d4")
    }));
    assert_eq!(a.position.carried_by(sq("d4")), Some(BK));
    assert_eq!(a.position.captive(WK), None);
}

#[test]
fn tower_deaths_from_g4_g7_a6_and_g5() {
    let p = rescue("Ag4 Wg7 Wg5 Fg1 wa6 fb8", 'w', RESCUE_KHAN);
    for token in ["Ag4-h5", "Wg7-h7", "Wg5-h6"] {
        let a = play(&p, token);
        assert!(
            matches!(a.events[..], [Event::DiedInTower { piece, .. }] if piece.side == Side::White),
            "{token}: {:?}",
            a.events
        );
        assert_eq!(a.position.pieces(Side::White).count(), 3);
    }
    let b = rescue("Ag4 Wg7 Wg5 Fg1 wa6 fb8", 'b', RESCUE_KHAN);
    let a = play(&b, "Wa6-a4");
    assert!(matches!(a.events[..], [Event::DiedInTower { .. }]));
    assert_eq!(a.position.pieces(Side::Black).count(), 1);
}

#[test]
fn a_carrier_walking_into_a_manned_square_dies_with_its_captive() {
    let siege = "towers=h5h6h7,a2a3a4:bk manned=a2a3a4h5h6h7 gers=a1:w,h8:b carried=g5:wk";
    let p = rescue("Wg5 Fg1 fb8", 'w', siege);
    let a = play(&p, "Wg5-h6");
    assert!(a.events.contains(&Event::CaptiveDied {
        captive: WK,
        square: sq("h6")
    }));
    assert_eq!(a.position.captive(WK), None);
}

#[test]
fn the_rescue_khan_start_matches_the_seed() {
    let p = ruleset("rescue-khan").start_position();
    // No khans on the board; the bondsmen g1 and b8 lead; gers a1 and h8.
    assert!(p.khan_types(Side::White).is_empty() && p.khan_types(Side::Black).is_empty());
    assert_eq!(p.royal(Side::White), Some(sq("g1")));
    assert_eq!(p.royal(Side::Black), Some(sq("b8")));
    assert!(p.gers(Side::White).contains(sq("a1")) && p.gers(Side::Black).contains(sq("h8")));
    assert_eq!(p.captive(WK), Some(CaptiveAt::Tower(0)));
    assert_eq!(p.captive(BK), Some(CaptiveAt::Tower(1)));
    assert_eq!(
        p.piece_at(sq("e2")),
        Some(Piece::new(Side::White, Kind::PowerMagician))
    );
}
