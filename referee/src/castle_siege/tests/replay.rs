//! Replaying a movetext from the faces it shows, and the fair-play door's
//! replay of the recorded dice.

use super::setup::{ATTACKER, DEFENDER, start};
use super::support::{attacking, play, standard};
use crate::castle_siege::{
    Declaration, Mark, ReplayError, Token, replay_record, replay_turns, resolve,
};
use crate::fair_play::chance::{ChanceError, PracticeChance, ReplayChance};
use crate::fair_play::encoding::Blob;
use crate::fair_play::game_id::GameId;
use crate::fair_play::outcome::PracticeStream;

fn toks(text: &str) -> Vec<Token> {
    text.split_whitespace()
        .map(|t| t.parse().unwrap_or_else(|e| panic!("{t}: {e}")))
        .collect()
}

#[test]
fn a_movetext_replays_from_its_faces() {
    let s = attacking(standard(), "Kc4 Kd6 Oc5", "Kb4 Tb4 Rb5 Ab3", "");
    let r = play(
        &s,
        "Move Kb4-c4 Tb4-a4 Breach Rb5#c5 Attack Kc4xKc4 Ab3xKc4 End",
        &[2, 4, 5, 1, 6],
    );
    let replayed = replay_turns(&s, &r.tokens()).expect("replays");
    assert_eq!(replayed.state, r.state);
    assert_eq!(replayed.dice, 5);
    // A changed face is found where it stands.
    let mut changed = r.tokens();
    changed[6] = "Kc4xKc4@5".parse().expect("token");
    let e = replay_turns(&s, &changed).unwrap_err();
    assert!(matches!(e, ReplayError::Mismatch { index: 7, .. }), "{e}");
    // A skip that is not one, a missing face.
    let mut skipped = r.tokens();
    skipped[4] = "Rb5#c5/skip".parse().expect("token");
    assert!(replay_turns(&s, &skipped).is_err());
    let mut short = r.tokens();
    short[4] = "Rb5#c5".parse().expect("token");
    assert!(matches!(
        replay_turns(&s, &short),
        Err(ReplayError::Dice { .. } | ReplayError::Mismatch { .. })
    ));
}

#[test]
fn a_whole_record_replays_with_its_setups() {
    let text = format!(
        "Defender:sealed Attacker:sealed {DEFENDER} {ATTACKER} \
         Move@2 Kd6-d5 Kf5-f4 Attack Cc6xRc8@6 End \
         Move@1 Kb8-b7 End"
    );
    let replayed = replay_record(standard(), &toks(&text)).expect("replays");
    assert_eq!(replayed.state.round(), 2);
    assert_eq!(
        replayed.state.count(crate::castle_siege::Side::Attacker),
        27
    );
    assert_eq!(replayed.orders, 9);
    let e = replay_record(standard(), &toks(&format!("{DEFENDER} End"))).unwrap_err();
    assert!(matches!(e, ReplayError::MissingSetup(_)), "{e}");
    let e = replay_record(
        standard(),
        &toks(&format!("{DEFENDER} {ATTACKER} End End Move@6")),
    );
    assert!(e.is_err());
    let e = replay_record(
        standard(),
        &toks("Defender:CCCC/KKKK/AAAA/OOOK Attacker:sealed"),
    )
    .unwrap_err();
    assert!(matches!(e, ReplayError::Setup { index: 0, .. }), "{e}");
}

#[test]
fn tokens_after_the_end_are_refused() {
    let s = attacking(standard(), "Kd6", "Kc4", "");
    let r = play(&s, "Move Kc4-d4", &[1]);
    // Declared with the move, End was skipped: written as a plain End it
    // does not match.
    let mut more = r.tokens();
    more.push("End".parse().expect("token"));
    assert!(matches!(
        replay_turns(&s, &more),
        Err(ReplayError::Mismatch { index: 2, .. })
    ));
    // Anything after the turn that ended the game is refused.
    more[2] = "End/skip".parse().expect("token");
    assert!(replay_turns(&s, &more).is_ok());
    more.push("End".parse().expect("token"));
    assert!(matches!(
        replay_turns(&s, &more),
        Err(ReplayError::AfterEnd { index: 3 })
    ));
}

#[test]
fn the_fair_play_door_replays_the_recorded_dice() {
    let game = GameId::new("cs-replay").expect("id");
    let seed = Blob::new(b"open".to_vec()).expect("seed");
    let s = start();
    let d: Declaration = "Move Kd6-d5 Kf5-f4 Attack Cc6xRc8 Ac3xKa1 End"
        .parse()
        .expect("declaration");
    let mut practice = PracticeChance::new(&game, &seed);
    let played = resolve(&s, &d, &mut practice).expect("resolves");
    let records = practice.take_records();
    assert_eq!(records.len(), played.dice());
    let mut replay = ReplayChance::new(PracticeStream::new(&game, &seed), &records);
    let again = resolve(&s, &d, &mut replay).expect("replays");
    assert_eq!(again, played);
    assert_eq!(replay.finish(), Ok(()));
    // One face changed in the evidence: refused by the door.
    let mut bad = records.into_vec();
    if let crate::fair_play::chance::ChanceResult::Die { face, .. } = &mut bad[1].result {
        *face = *face % 6 + 1;
    }
    let mut replay = ReplayChance::new(PracticeStream::new(&game, &seed), &bad);
    assert!(matches!(
        resolve(&s, &d, &mut replay),
        Err(crate::castle_siege::ResolveError::Chance {
            error: ChanceError::Mismatch { position: 1, .. },
            ..
        })
    ));
    assert!(played.tokens().iter().any(|t| matches!(
        t,
        Token::Order {
            mark: Mark::Roll(_),
            ..
        }
    )));
}
