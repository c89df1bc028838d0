//! One test (or a few) per rule of docs/rules/khan.md: the legal case
//! accepted, the illegal one refused with its reason. Options are tested on
//! and off. Siege rules the seed describes are in `seed.rs`.

use super::support::{board, play, play_all, pos_with, refused, setup, start, text};
use crate::khan::{
    Captive, CaptiveAt, DrawReason, Event, Kind, Options, Outcome, Piece, PowerMagicianMoves,
    RecordEvent, Side, WinReason,
};

use super::support::sq;

fn on(f: impl FnOnce(&mut Options)) -> Options {
    let mut o = Options::default();
    f(&mut o);
    o
}

fn piece(c: char) -> Option<Piece> {
    Piece::from_fen_char(c)
}

// --- KR-1: turn order and pieces -------------------------------------------

#[test]
fn kr_1_white_moves_first_and_only_its_own_pieces() {
    let p = start("magician");
    play(&p, "Ad2-d3");
    refused(
        &p,
        "Ab5-b4",
        "the black archer on b5 is not White's, and it is White's move",
    );
    refused(&p, "Ae4-e5", "there is no piece on e4");
    refused(&p, "Wd2-d3", "the piece on d2 is an archer, not a warrior");
}

// --- KR-3: movement ----------------------------------------------------------

#[test]
fn kr_3_1_swordsman_and_khan_sword_step_one_square_diagonally() {
    let p = start("magician");
    play(&p, "Sf2-e3");
    refused(
        &p,
        "Sf2-f3",
        "the white swordsman on f2 cannot reach f3: it moves one square diagonally",
    );
    let p = board("Ie4 Fg1 ka8 fb8", 'w');
    play(&p, "Ie4-d5");
    refused(&p, "Ie4-e5", "it moves one square diagonally");
}

#[test]
fn kr_3_2_archer_and_khan_archer_step_one_square_any_way() {
    let p = start("magician");
    play(&p, "Ad2-c3");
    refused(
        &p,
        "Ad2-d4",
        "the white archer on d2 cannot reach d4: it moves one square in any direction",
    );
    let p = board("Je4 Fg1 ka8 fb8", 'w');
    play(&p, "Je4-e5");
    refused(&p, "Je4-e6", "it moves one square in any direction");
}

#[test]
fn kr_3_3_assassin_slides_one_or_two_orthogonally() {
    let p = start("magician");
    play(&p, "Ng3-e3");
    refused(
        &p,
        "Ng3-g5",
        "the white assassin on g3 cannot reach g5: every way there is blocked",
    );
    refused(
        &p,
        "Ng3-f4",
        "it moves one or two squares along a rank or file",
    );
}

#[test]
fn kr_3_4_magician_and_demoted_magician_step_one_orthogonally() {
    let p = start("magician");
    play(&p, "Me2-e3");
    refused(
        &p,
        "Me2-f3",
        "the white magician on e2 cannot reach f3: it moves one square along a rank or file",
    );
    let p = board("Ge4 Kh1 Fg1 ka8 fb8", 'w');
    play(&p, "Ge4-e5");
    refused(&p, "Ge4-f5", "along a rank or file");
}

#[test]
fn kr_3_5_power_magician_moves_like_a_warrior_or_orthogonally() {
    let p = board("Hf6 Kh1 Fg1 ka8 fb8", 'w');
    play(&p, "Hf6-h7");
    play(&p, "Hf6-f4");
    let ortho = on(|o| o.power_magician_moves = PowerMagicianMoves::Orthogonal);
    let q = setup("Hf6 Kh1 Fg1 ka8 fb8", 'w', "", ortho);
    refused(
        &q,
        "Hf6-h7",
        "it moves one or two squares along a rank or file",
    );
    play(&q, "Hf6-f4");
}

#[test]
fn kr_3_6_warrior_two_king_steps_through_any_open_middle() {
    let p = board("We4 Kh1 Fg1 ka8 fb8", 'w');
    play(&p, "We4-g5");
    play(&p, "We4-e6");
    refused(
        &p,
        "We4-e7",
        "the white warrior on e4 cannot reach e7: it moves one or two king steps",
    );
    // a1 to c1: b1 is taken, but b2 is a middle square too.
    let p = board("Wa1 Ab1 Kh1 Fg1 ka8 fb8", 'w');
    play(&p, "Wa1-c1");
    let p = board("Wa1 Ab1 Ab2 Kh1 Fg1 ka8 fb8", 'w');
    refused(&p, "Wa1-c1", "every way there is blocked");
    refused(&start("magician"), "We1-e3", "every way there is blocked");
}

#[test]
fn kr_3_7_bondsman_adds_orthogonal_slides_of_three() {
    let p = board("Fd1 Kh1 ka8 fb8", 'w');
    play(&p, "Fd1-d4");
    refused(&p, "Fd1-g4", "or up to three squares along a rank or file");
    let p = board("Fd1 Ad3 Kh1 ka8 fb8", 'w');
    refused(&p, "Fd1-d4", "every way there is blocked");
}

#[test]
fn kr_3_8_khan_adds_slides_of_three_in_every_direction() {
    let p = board("Kd1 Fh1 ka8 fb8", 'w');
    play(&p, "Kd1-g4");
    play(&p, "Kd1-d4");
    refused(&p, "Kd1-d5", "or up to three squares in a straight line");
}

#[test]
fn kr_3_9_moves_onto_enemies_are_captures_onto_friends_illegal() {
    let p = board("We4 Ad4 Kh1 Fg1 ka8 fb8 af5", 'w');
    let a = play(&p, "We4xf5");
    assert!(a.events.contains(&Event::Captured {
        piece: Piece::new(Side::Black, Kind::Archer),
        square: sq("f5")
    }));
    refused(
        &p,
        "We4-f5",
        "there is a black archer on f5: a move onto an enemy piece is a capture, written x",
    );
    refused(&p, "We4xf6", "there is nothing to capture on f6");
    refused(
        &p,
        "We4-d4",
        "the white archer on d4 is on the mover's side",
    );
    refused(
        &p,
        "We4xd4",
        "the white archer on d4 is on the mover's side",
    );
}

#[test]
fn kr_3_10_swords_capture_mounts_only_with_the_option() {
    let pieces = "Se4 Kh1 Fg1 ka8 fb8 wf5 ad5";
    let off = board(pieces, 'w');
    refused(
        &off,
        "Se4xf5",
        "a swordsman may not capture a mounted warrior (swordsCaptureMounts is off)",
    );
    play(&off, "Se4xd5");
    let on_ = setup(pieces, 'w', "", on(|o| o.swords_capture_mounts = true));
    play(&on_, "Se4xf5");
}

// --- KR-4: spells --------------------------------------------------------------

#[test]
fn kr_4_1_spell_range_is_two_for_m_and_h_one_for_g_plus_the_option() {
    let pieces = "Me4 Ae3 Kh1 Fg1 ka8 fb8 wg6 wh7";
    let p = board(pieces, 'w');
    let a = play(&p, "Me4*g6");
    assert_eq!(a.position.piece_at(sq("g6")), piece('a'));
    assert_eq!(
        a.position.piece_at(sq("e4")),
        piece('M'),
        "the caster does not move"
    );
    refused(
        &p,
        "Me4*h7",
        "the white magician on e4 casts spells at most 2 squares away (king distance); h7 is 3 away",
    );
    let wide = setup(
        pieces,
        'w',
        "",
        on(|o| o.magician_extended_demotion_sqs = 1),
    );
    play(&wide, "Me4*h7");
    refused(
        &p,
        "Ae3*e5",
        "the white archer on e3 is not a magician and casts no spells",
    );
    refused(
        &p,
        "Me4*e3",
        "a spell cannot be cast at the mover's own white archer on e3",
    );
    refused(&p, "Me4*e6", "a spell at e6 has no target");
    let g = board("Ge4 Kh1 Fg1 ka8 fb8 wf5 wg6", 'w');
    play(&g, "Ge4*f5");
    refused(&g, "Ge4*g6", "casts spells at most 1 square away");
    // KR-P3: the option widens G's range too.
    play(
        &setup(
            "Ge4 Kh1 Fg1 ka8 fb8 wf5 wg6",
            'w',
            "",
            on(|o| o.magician_extended_demotion_sqs = 1),
        ),
        "Ge4*g6",
    );
}

#[test]
fn kr_4_2_spells_demote_one_step_and_not_the_bottom_pieces() {
    let p = board("He4 Kh1 Fg1 ka8 fb8 hc4 nd6 wf6 sg5 ie2 gc2 fe6", 'w');
    for (token, square, becomes) in [
        ("He4*c4", "c4", 'm'),
        ("He4*d6", "d6", 's'),
        ("He4*f6", "f6", 'a'),
    ] {
        assert_eq!(
            play(&p, token).position.piece_at(sq(square)),
            piece(becomes),
            "{token}"
        );
    }
    refused(&p, "He4*e6", "the black bondsman on e6 cannot be demoted");
    refused(&p, "He4*g5", "the black swordsman on g5 cannot be demoted");
    refused(&p, "He4*e2", "the black khan sword on e2 cannot be demoted");
    refused(
        &p,
        "He4*c2",
        "the black demoted magician on c2 cannot be demoted",
    );
    let m = board("Me4 Kh1 Fg1 ka8 fb8 mc4", 'w');
    assert_eq!(play(&m, "Me4*c4").position.piece_at(sq("c4")), piece('g'));
}

#[test]
fn kr_4_3_khans_are_demoted_only_with_the_option() {
    let pieces = "Me4 Kh1 Fg1 kg6 fb8 jc4";
    let p = board(pieces, 'w');
    assert_eq!(play(&p, "Me4*g6").position.piece_at(sq("g6")), piece('j'));
    assert_eq!(play(&p, "Me4*c4").position.piece_at(sq("c4")), piece('i'));
    let off = setup(pieces, 'w', "", on(|o| o.magician_demotes_khan = false));
    refused(
        &off,
        "Me4*g6",
        "spells may not target the black khan on g6 (magicianDemotesKhan is off)",
    );
    refused(&off, "Me4*c4", "magicianDemotesKhan is off");
}

#[test]
fn kr_4_4_capture_and_spell_at_one_piece_are_two_moves() {
    let p = board("Me4 Kh1 Fg1 ka8 fb8 we5", 'w');
    let capture = play(&p, "Me4xe5").position;
    let spell = play(&p, "Me4*e5").position;
    assert_eq!(capture.piece_at(sq("e5")), piece('M'));
    assert_eq!(spell.piece_at(sq("e5")), piece('a'));
}

// --- KR-5: promotions and exchanges -------------------------------------------

#[test]
fn kr_5_1_base_promotion_on_arrival_in_the_enemy_camp() {
    // The WIN page's example: an assassin b5-b7 becomes a warrior.
    let pieces = "Nb5 Jc6 Ia6 Wc5 Kh1 Fg1 ke8 fd8";
    let p = board(pieces, 'w');
    assert_eq!(play(&p, "Nb5-b7=W").position.piece_at(sq("b7")), piece('W'));
    refused(
        &p,
        "Nb5-b7",
        "this move promotes the assassin to a warrior: write =W",
    );
    refused(
        &p,
        "Nb5-b7=A",
        "this move promotes the assassin to a warrior, not to an archer",
    );
    assert_eq!(play(&p, "Jc6-b7=K").position.piece_at(sq("b7")), piece('K'));
    assert_eq!(play(&p, "Ia6-b7=J").position.piece_at(sq("b7")), piece('J'));
    assert_eq!(play(&p, "Wc5-b7").position.piece_at(sq("b7")), piece('W'));
    let q = board("Gb6 Ma6 Kh1 Fg1 ke8 fd8", 'w');
    assert_eq!(play(&q, "Gb6-b7=M").position.piece_at(sq("b7")), piece('M'));
    assert_eq!(play(&q, "Ma6-a7=H").position.piece_at(sq("a7")), piece('H'));
    // Black's camp is g1 g2 h1 h2.
    let b = board("Ka8 Fb8 sg3 kd5 fe5", 'b');
    assert_eq!(play(&b, "Sg3-h2=W").position.piece_at(sq("h2")), piece('w'));
    // KR-P8: also from one camp square to another.
    let c = board("Ja7 Kh1 Fg1 ke8 fd8", 'w');
    play(&c, "Ja7-a8=K");
    let off = setup(pieces, 'w', "", on(|o| o.base_promotions = false));
    assert_eq!(play(&off, "Nb5-b7").position.piece_at(sq("b7")), piece('N'));
    refused(&off, "Nb5-b7=W", "this move promotes nothing; remove =W");
}

#[test]
fn kr_5_2_capture_promotions_only_with_the_option() {
    let pieces = "Sd5 Aa5 Sc7 Kh1 Fg1 ke8 fd8 ac6 wa6 ab8";
    let p = setup(pieces, 'w', "", on(|o| o.capture_promotions = true));
    assert_eq!(play(&p, "Sd5xc6=A").position.piece_at(sq("c6")), piece('A'));
    assert_eq!(play(&p, "Aa5xa6=W").position.piece_at(sq("a6")), piece('W'));
    // Capture promotion, then base promotion (KR-P11): S takes A on b8, A arrives in the camp.
    let both = play(&p, "Sc7xb8=W");
    assert!(both.events.contains(&Event::Promoted {
        square: sq("b8"),
        from: Kind::Swordsman,
        to: Kind::Warrior
    }));
    let mounts = setup(
        "Sd5 Kh1 Fg1 ke8 fd8 we6",
        'w',
        "",
        on(|o| {
            o.capture_promotions = true;
            o.swords_capture_mounts = true;
        }),
    );
    play(&mounts, "Sd5xe6=W");
    let off = board(pieces, 'w');
    assert_eq!(play(&off, "Sd5xc6").position.piece_at(sq("c6")), piece('S'));
    refused(&off, "Sd5xc6=A", "this move promotes nothing");
}

#[test]
fn kr_5_3_exchanges_only_with_the_option() {
    let pieces = "Je2 We1 Ff1 Ad1 Sd3 We4 Mc3 Wc2 Gg3 Ah3 Kh8 ka8 fb8";
    let p = setup(pieces, 'w', "", on(|o| o.exchanges = true));
    let a = play(&p, "Je2<>e1");
    assert_eq!(a.position.piece_at(sq("e2")), piece('K'));
    assert_eq!(a.position.piece_at(sq("e1")), piece('A'));
    assert_eq!(play(&p, "Je2<>f1").position.piece_at(sq("f1")), piece('W'));
    assert_eq!(play(&p, "Je2<>d1").position.piece_at(sq("d1")), piece('S'));
    assert_eq!(play(&p, "Mc3<>c2").position.piece_at(sq("c3")), piece('H'));
    assert_eq!(play(&p, "Gg3<>h3").position.piece_at(sq("g3")), piece('M'));
    refused(
        &p,
        "Je2<>d3",
        "the white swordsman on d3 cannot give in an exchange",
    );
    refused(&p, "Je2<>e4", "e4 is not next to e2");
    refused(
        &p,
        "Je2<>f2",
        "there is no friendly piece on f2 to exchange with",
    );
    refused(
        &p,
        "Kh8<>g8",
        "the white khan on h8 cannot receive in an exchange",
    );
    refused(
        &p,
        "We1<>f1",
        "the white warrior on e1 cannot receive in an exchange",
    );
    let off = board(pieces, 'w');
    refused(&off, "Je2<>e1", "exchanges are off in this ruleset");
}

// --- KR-6: leaders, check, end of game -----------------------------------------

#[test]
fn kr_6_2_a_single_leader_is_royal() {
    let lone = board("Fe1 Af2 Wa1 Nh1 kd8 fb8 wd3", 'w');
    refused(
        &lone,
        "Af2-f3",
        "this move leaves the royal bondsman on e1 attacked by the black warrior on d3",
    );
    play(&lone, "Fe1xd3");
    play(&lone, "Fe1-g1");
    // With two leaders neither is royal.
    let two = board("Fe1 Kh3 Af2 Wa1 Nh1 kd8 fb8 wd3", 'w');
    play(&two, "Af2-f3");
}

#[test]
fn kr_6_2_bondsmen_leaders_off_makes_the_khan_alone_royal() {
    let pieces = "Kg1 Fe1 Ah2 ka8 fb8 we3 wc3";
    let off = setup(pieces, 'w', "", on(|o| o.bondsmen_leaders = false));
    refused(
        &off,
        "Ah2-h3",
        "this move leaves the royal khan on g1 attacked by the black warrior on e3",
    );
    // The bondsman is an ordinary piece: it may stay attacked by c3.
    play(&off, "Kg1-h1");
    let on_ = board(pieces, 'w');
    play(&on_, "Ah2-h3");
}

#[test]
fn kr_p7_spells_never_attack_and_swords_attack_mounts_only_with_the_option() {
    let spell = board("Fe1 Ah2 kd8 fb8 me3", 'w');
    play(&spell, "Ah2-h3");
    let pieces = "Fe1 Ah2 kd8 fb8 sd2";
    play(&board(pieces, 'w'), "Ah2-h3");
    let swords = setup(pieces, 'w', "", on(|o| o.swords_capture_mounts = true));
    refused(
        &swords,
        "Ah2-h3",
        "leaves the royal bondsman on e1 attacked by the black swordsman on d2",
    );
}

#[test]
fn kr_6_3_a_side_without_leaders_loses() {
    let p = board("We4 Kh1 Fg1 ka8 fe5", 'w');
    let a = play(&p, "We4xe5").position;
    assert_eq!(a.outcome(), None, "one black leader left");
    let q = board("We4 Kh1 Fg1 fe5", 'w');
    let b = play(&q, "We4xe5").position;
    assert_eq!(
        b.outcome(),
        Some(Outcome::Win {
            winner: Side::White,
            reason: WinReason::NoLeader
        })
    );
    refused(
        &b,
        "Kh1-h2",
        "the game is over: White wins: Black has no leader left on the board",
    );
}

#[test]
fn kr_p5_a_move_may_lose_ones_own_last_leader() {
    let p = setup(
        "Fg6 Ae2 ka8 fb8",
        'w',
        "towers=h5h6h7 manned=h5h6h7",
        Options::default(),
    );
    let a = play(&p, "Fg6-h6");
    assert!(matches!(a.events[0], Event::DiedInTower { .. }));
    assert_eq!(
        a.position.outcome(),
        Some(Outcome::Win {
            winner: Side::Black,
            reason: WinReason::NoLeader
        })
    );
}

#[test]
fn kr_p14_if_one_move_leaves_both_sides_leaderless_its_maker_wins() {
    // Khans alone lead; each side's khan is carried; the black magician stands
    // on a manned square with Black's khan, the white warrior with White's.
    let p = setup(
        "Wg5 Fa1 mh6 fa8",
        'w',
        "towers=h5h6h7 manned=h5h6h7 gers=a1:w,h8:b carried=g5:wk,h6:bk",
        on(|o| o.bondsmen_leaders = false),
    );
    let a = play(&p, "Wg5xh6");
    assert_eq!(a.position.captive(Captive::Khan(Side::White)), None);
    assert_eq!(a.position.captive(Captive::Khan(Side::Black)), None);
    assert_eq!(
        a.position.outcome(),
        Some(Outcome::Win {
            winner: Side::White,
            reason: WinReason::NoLeader
        })
    );
}

#[test]
fn kr_p4_a_khan_in_captivity_keeps_its_side_alive_in_single_leader_mode() {
    let p = setup(
        "Fe1 Ah2 ka8 fb8 wd3",
        'w',
        "towers=h5h6h7:wk manned=h5h6h7 gers=a1:w,h8:b",
        on(|o| o.bondsmen_leaders = false),
    );
    assert_eq!(p.outcome(), None);
    // No royal piece: the bondsman may stay attacked.
    play(&p, "Ah2-h3");
}

#[test]
fn kr_6_4_checkmate_wins_and_stalemate_draws() {
    let mate = board("Kh1 Ab7 Wb5 We6 fa8", 'b');
    assert_eq!(
        mate.outcome(),
        Some(Outcome::Win {
            winner: Side::White,
            reason: WinReason::Checkmate
        })
    );
    refused(&mate, "Fa8-d8", "the game is over");
    // The WIN page's stalemate: a lone khan archer that cannot move unattacked.
    let stale = board("Jh1 ka8 fb8 ag3 sf2", 'w');
    assert_eq!(
        stale.outcome(),
        Some(Outcome::Draw {
            reason: DrawReason::Stalemate
        })
    );
    assert!(crate::khan::legal_moves(&stale).is_empty());
}

#[test]
fn kr_6_5_a_hundred_plies_without_capture_or_death_draw() {
    let t = text("We4 Kh1 Fg1 ka8 fb8 af5", 'w', "").replace(" w 0 1", " w 99 60");
    let p = pos_with(&t, Options::default());
    let quiet = play(&p, "We4-e5").position;
    assert_eq!(quiet.halfmoves(), 100);
    assert_eq!(
        quiet.outcome(),
        Some(Outcome::Draw {
            reason: DrawReason::HundredPlies
        })
    );
    refused(&quiet, "Fb8-c8", "the game is over: draw: 100 plies");
    let capture = play(&p, "We4xf5").position;
    assert_eq!(capture.halfmoves(), 0);
    assert_eq!(capture.outcome(), None);
    // Spells do not reset the count.
    let t = text("Me4 Kh1 Fg1 ka8 fb8 we5", 'w', "").replace(" w 0 1", " w 7 60");
    let spelled = play(&pos_with(&t, Options::default()), "Me4*e5").position;
    assert_eq!(spelled.halfmoves(), 8);
    // Checkmate comes first (KR-P14).
    let t = text("Kh1 Ab7 Wb5 We6 fa8", 'b', "").replace(" b 0 1", " b 100 80");
    assert_eq!(
        pos_with(&t, Options::default())
            .outcome()
            .and_then(|o| o.winner()),
        Some(Side::White)
    );
}

#[test]
fn kr_6_6_resignation_and_agreement_are_record_events() {
    assert_eq!(
        RecordEvent::Resignation(Side::Black).outcome(),
        Outcome::Win {
            winner: Side::White,
            reason: WinReason::Resignation
        }
    );
    assert_eq!(RecordEvent::DrawAgreed.outcome().result(), "1/2-1/2");
    assert_eq!(
        RecordEvent::Resignation(Side::White).outcome().result(),
        "0-1"
    );
}

// --- KR-7: towers, captives, gers (beyond the seed's moves) --------------------

#[test]
fn kr_7_1_manned_squares_block_passage_and_spare_only_magicians() {
    let siege = "towers=h5h6h7:wk,a2a3a4:bk manned=a2a3a4h5h6h7 gers=a1:w,h8:b";
    let p = setup("Wg6 Hg4 Fg1 fb8", 'w', siege, Options::default());
    play(&p, "Wg6-h4");
    let blocked = setup("Wg6 Ag5 Hg4 Fg1 fb8", 'w', siege, Options::default());
    refused(&blocked, "Wg6-h4", "every way there is blocked");
    let m = play(&p, "Hg4-h5");
    assert_eq!(
        m.position.piece_at(sq("h5")),
        piece('H'),
        "a magician stands on a manned square"
    );
    assert_eq!(
        m.position.captive(Captive::Khan(Side::White)),
        Some(CaptiveAt::Tower(0)),
        "and picks nobody up there"
    );
    let d = play(&p, "Wg6-h6");
    assert_eq!(d.position.piece_at(sq("h6")), None);
    assert_eq!(d.position.halfmoves(), 0, "a tower death resets the count");
}

#[test]
fn kr_7_2_spells_silence_empty_manned_squares_and_hit_pieces_standing_there() {
    let siege = "towers=h5h6h7:wk manned=h5h6h7 gers=a1:w,h8:b";
    let p = setup("Hf5 Fg1 fb8 mh6", 'w', siege, Options::default());
    let a = play(&p, "Hf5*h5");
    assert!(!a.position.manned().contains(sq("h5")));
    assert!(a.events.contains(&Event::Silenced { square: sq("h5") }));
    // KR-P2: at an occupied manned square the spell is at the piece.
    let b = play(&p, "Hf5*h6").position;
    assert_eq!(b.piece_at(sq("h6")), piece('g'));
    assert!(b.manned().contains(sq("h6")));
    let again = setup(
        "Hf5 Fg1 fb8",
        'w',
        "towers=h5h6h7:wk manned=h6h7 gers=a1:w,h8:b",
        Options::default(),
    );
    refused(&again, "Hf5*h5", "a spell at h5 has no target");
}

#[test]
fn kr_7_3_a_carrier_picks_up_nothing_more() {
    let siege = "towers=h5h6h7,a2a3a4:bk manned=a2a4h5h6h7 gers=a1:w,h8:b carried=b4:wk";
    let p = setup("Wb4 Fg1 fb8", 'w', siege, Options::default());
    let a = play(&p, "Wb4-a3").position;
    assert_eq!(a.carried_by(sq("a3")), Some(Captive::Khan(Side::White)));
    assert_eq!(
        a.captive(Captive::Khan(Side::Black)),
        Some(CaptiveAt::Tower(1))
    );
}

#[test]
fn kr_7_5_transfers_go_to_a_friendly_neighbour_that_carries_nothing() {
    let siege = "towers=h5h6h7,a2a3a4:bk manned=a2a3a4h5h6h7 gers=a1:w,h8:b carried=e2:wk";
    let p = setup("Ae2 Wd2 Fg1 fb8 af3 ae4", 'w', siege, Options::default());
    refused(&p, "Wd2>e2", "the white warrior on d2 carries no captive");
    refused(
        &p,
        "Ae2>f3",
        "there is no friendly piece on f3 to take the captive",
    );
    refused(&p, "Ae2>e3", "there is no friendly piece on e3");
    refused(&p, "Ae2>d4", "d4 is not next to e2");
    let q = setup(
        "Ae2 Wd2 Fg1 fb8",
        'w',
        "towers=h5h6h7,a2a3a4 manned=a2a3a4h5h6h7 gers=a1:w,h8:b carried=d2:bk,e2:wk",
        Options::default(),
    );
    refused(
        &q,
        "Ae2>d2",
        "the white warrior on d2 already carries a captive",
    );
}

#[test]
fn kr_p12_a_captive_waits_while_its_ger_is_occupied_by_anyone() {
    // White drops its khan at a1; Black takes the warrior there; the khan
    // appears only when the capturer leaves.
    let siege = "towers=h5h6h7,a2a3a4:bk manned=a2a3a4h5h6h7 gers=a1:w,h8:b carried=b2:wk";
    let p = setup("Wb2 Fg1 fb8 wc3", 'w', siege, Options::default());
    let p = play(&p, "Wb2-a1").position;
    assert_eq!(
        p.captive(Captive::Khan(Side::White)),
        Some(CaptiveAt::Waiting(sq("a1")))
    );
    let p = play(&p, "Wc3xa1").position;
    assert_eq!(
        p.captive(Captive::Khan(Side::White)),
        Some(CaptiveAt::Waiting(sq("a1")))
    );
    let p = play_all(&p, "Fg1-g2");
    let a = play(&p, "Wa1-c2");
    assert!(a.events.contains(&Event::Released {
        captive: Captive::Khan(Side::White),
        square: sq("a1")
    }));
    assert_eq!(a.position.piece_at(sq("a1")), piece('K'));
}

#[test]
fn kr_p12_an_enemy_khan_brought_to_its_own_ger_is_dropped_off_too() {
    let siege = "towers=h5h6h7:wk,a2a3a4 manned=a2a3a4h5h6h7 gers=a1:w,h8:b carried=g7:bk";
    let p = setup("Wg7 Fg1 fb8", 'w', siege, Options::default());
    let p = play(&p, "Wg7-h8").position;
    assert_eq!(
        p.captive(Captive::Khan(Side::Black)),
        Some(CaptiveAt::Waiting(sq("h8")))
    );
    let p = play_all(&p, "Fb8-c8 Wh8-g6");
    assert_eq!(p.piece_at(sq("h8")), piece('k'));
}

// --- KR-9: Rescue General ------------------------------------------------------

const GENERAL: &str = "towers=d4e4d5e5:gen manned=e4d5e5 gers=a1:w,h8:b";

#[test]
fn kr_9_the_general_is_picked_up_taken_over_and_delivered() {
    let p = setup("Wc3 Kh1 Fg1 ka8 fb8 ac5", 'w', GENERAL, Options::default());
    let p = play(&p, "Wc3-d4").position;
    assert_eq!(p.carried_by(sq("d4")), Some(Captive::General));
    let p = play(&p, "Ac5xd4").position;
    assert_eq!(
        p.carried_by(sq("d4")),
        Some(Captive::General),
        "the capturer takes him over"
    );
}

#[test]
fn kr_9_delivering_the_general_to_ones_own_ger_wins_at_once() {
    let p = setup(
        "Wc2 Kh1 Fg1 ka8 fb8",
        'w',
        "towers=d4e4d5e5 manned=e4d5e5 gers=a1:w,h8:b carried=c2:gen",
        Options::default(),
    );
    let a = play(&p, "Wc2-a1");
    assert!(a.events.contains(&Event::Delivered {
        side: Side::White,
        ger: sq("a1")
    }));
    assert_eq!(
        a.position.outcome(),
        Some(Outcome::Win {
            winner: Side::White,
            reason: WinReason::GeneralDelivered
        })
    );
    // KR-P13: on the other side's ger nothing happens.
    let q = setup(
        "Kh1 Fg1 ka8 fb8 wc2",
        'b',
        "towers=d4e4d5e5 manned=e4d5e5 gers=a1:w,h8:b carried=c2:gen",
        Options::default(),
    );
    let b = play(&q, "Wc2-a1").position;
    assert_eq!(b.carried_by(sq("a1")), Some(Captive::General));
    assert_eq!(b.outcome(), None);
}

#[test]
fn kr_9_if_the_general_dies_the_game_goes_on() {
    let p = setup(
        "Wd3 Kh1 Fg1 ka8 fb8",
        'w',
        "towers=d4e4d5e5 manned=e4d5e5 gers=a1:w,h8:b carried=d3:gen",
        Options::default(),
    );
    let a = play(&p, "Wd3-e4");
    assert!(a.events.contains(&Event::CaptiveDied {
        captive: Captive::General,
        square: sq("e4")
    }));
    assert_eq!(a.position.outcome(), None);
}
