//! Setups (CS-07 to CS-10): legal placements, canonical bytes, and the
//! commit-reveal exchange of the fair-play layer that supersedes CS-09.

use crate::castle_siege::{Ruleset, Setup, SetupError, Side, State, UnitKind};
use crate::fair_play::commit::Salt;
use crate::fair_play::game_id::GameId;
use crate::fair_play::sign::SigningKey;

pub const DEFENDER: &str = "Defender:CKAO/OACK/KCOA/AOKC";
pub const ATTACKER: &str = "Attacker:KKRTTRKK/AA/SS/CC/CC/SS/AA/KKRTTRKK";

/// The start of a game with the two sample setups.
pub fn start() -> State {
    let d = Setup::parse(DEFENDER).expect("defender setup");
    let a = Setup::parse(ATTACKER).expect("attacker setup");
    State::new(Ruleset::standard().rules, &d, &a).expect("a start")
}

#[test]
fn cs08_any_permutation_of_the_army_on_its_own_squares() {
    for text in [
        DEFENDER,
        "Defender:CCCC/KKKK/AAAA/OOOO",
        ATTACKER,
        "Attacker:TTTTRRRR/CC/CC/SS/SS/AA/AA/KKKKKKKK",
    ] {
        let s = Setup::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(s.token().to_string(), text);
    }
    assert_eq!(
        Setup::parse("Defender:CCCC/KKKK/AAAA/OOOK").unwrap_err(),
        SetupError::WrongCount {
            side: Side::Defender,
            kind: UnitKind::Knight,
            expected: 4,
            found: 5
        }
    );
    let e = Setup::parse("Defender:CCCC/KKKK/AAAA/OOOR").unwrap_err();
    assert!(
        matches!(
            e,
            SetupError::NotInArmy {
                kind: UnitKind::Ram,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("f3"), "{e}");
    let e = Setup::parse("Attacker:KKRTTRKK/AA/SS/CC/CC/SS/AA/KKRTTRKO").unwrap_err();
    assert!(
        matches!(
            e,
            SetupError::NotInArmy {
                kind: UnitKind::Cauldron,
                ..
            }
        ),
        "{e}"
    );
    assert!(matches!(
        Setup::parse("Defender:sealed"),
        Err(SetupError::NotAPlacement(_))
    ));
    assert!(matches!(
        Setup::parse("Defender:CKA"),
        Err(SetupError::Syntax(_))
    ));
}

#[test]
fn canonical_bytes_are_the_canonical_token() {
    let s = Setup::parse("defender:ckao/oack/kcoa/aokc").expect("lenient reading");
    assert_eq!(s.canonical_bytes(), DEFENDER.as_bytes());
    assert_eq!(
        Setup::from_canonical_bytes(Side::Defender, DEFENDER.as_bytes()),
        Ok(s.clone())
    );
    // One spelling only, and the right side.
    assert!(matches!(
        Setup::from_canonical_bytes(Side::Defender, b"defender:ckao/oack/kcoa/aokc"),
        Err(SetupError::NotCanonical { .. })
    ));
    assert!(matches!(
        Setup::from_canonical_bytes(Side::Attacker, DEFENDER.as_bytes()),
        Err(SetupError::WrongSide { .. })
    ));
    assert_eq!(
        Setup::from_canonical_bytes(Side::Defender, &[0xff, 0xfe]),
        Err(SetupError::NotText)
    );
}

#[test]
fn cs07_cs09_setups_are_committed_then_revealed() {
    let game = GameId::new("siege-test").expect("game id");
    let defender = SigningKey::from_seed(&[1; 32]).public_key();
    let attacker = SigningKey::from_seed(&[2; 32]).public_key();
    let d = Setup::parse(DEFENDER).expect("setup");
    let a = Setup::parse(ATTACKER).expect("setup");
    // Both commit before either reveals; the salts hide the placements.
    let (dc, d_open) = d
        .commit(&game, &defender, Salt::from_bytes([7; 32]))
        .expect("commit");
    let (ac, a_open) = a
        .commit(&game, &attacker, Salt::from_bytes([9; 32]))
        .expect("commit");
    let dr = Setup::reveal(Side::Defender, &game, &defender, &dc, &d_open).expect("honest");
    let ar = Setup::reveal(Side::Attacker, &game, &attacker, &ac, &a_open).expect("honest");
    assert_eq!((dr.clone(), ar.clone()), (d, a));
    let s = State::new(Ruleset::standard().rules, &dr, &ar).expect("start");
    assert_eq!(s.units().len(), 44);
    // A changed placement, salt or player is refused.
    let other = Setup::parse("Defender:CCCC/KKKK/AAAA/OOOO").expect("setup");
    let changed = other.opening(d_open.salt).expect("opening");
    assert!(matches!(
        Setup::reveal(Side::Defender, &game, &defender, &dc, &changed),
        Err(SetupError::Commitment(_))
    ));
    let resalted = dr.opening(Salt::from_bytes([8; 32])).expect("opening");
    assert!(Setup::reveal(Side::Defender, &game, &defender, &dc, &resalted).is_err());
    assert!(Setup::reveal(Side::Defender, &game, &attacker, &dc, &d_open).is_err());
    // The sides must be right.
    assert_eq!(
        State::new(Ruleset::standard().rules, &ar, &dr).unwrap_err(),
        SetupError::SidesMixed
    );
}
