//! Khan move tokens (KR-N), as players write them in mails and records.
//!
//! - Any text, whole and word by word: `MoveToken::parse` never panics,
//!   and a token it reads prints canonically and reads back the same.
//! - The words played in turn from the start of a built-in ruleset (the
//!   first byte picks it): a token is resolved against the position, and
//!   a word that is a number plays that legal move (modulo their count),
//!   so games go deep (captives, spells, promotions). Resolving never
//!   panics; `resolve` and `resolve_into` agree; a move resolved from a
//!   token is legal (`apply` plays it) and its canonical token is that
//!   token; every legal move played prints as a token that resolves back
//!   to it.
//! - The same moves, written as a record and read by `yam check`'s
//!   checker (which plays plain moves on its position in place and takes
//!   them back for a variation): every one is accepted, with a variation
//!   on the last one from the position before it; the first written token
//!   refused is refused there too, with `resolve`'s reason; a checker
//!   kept across the run's inputs reports each as a new one does.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use yam_notation::khan::MoveToken;
use yam_referee::check::{Checker, Verdict};
use yam_referee::khan::ruleset::BUILTIN;
use yam_referee::khan::{
    Position, Ruleset, Side, apply, legal_moves, outcome, resolve, resolve_into, to_token,
};

/// The most moves one input plays.
const MAX_PLIES: usize = 300;

fn starts() -> &'static [Position] {
    static STARTS: OnceLock<Vec<Position>> = OnceLock::new();
    STARTS.get_or_init(|| {
        BUILTIN
            .iter()
            .map(|(name, _)| {
                Ruleset::builtin(name)
                    .unwrap_or_else(|e| panic!("built-in ruleset {name}: {e}"))
                    .start_position()
            })
            .collect()
    })
}

/// `token` played in `pos`, with its move number, as a record writes it.
fn numbered(pos: &Position, token: &MoveToken) -> String {
    match pos.turn() {
        Side::White => format!("{}. {token} ", pos.fullmoves()),
        Side::Black => format!("{}... {token} ", pos.fullmoves()),
    }
}

/// The checker's verdict on the Khan record of ruleset `name` with this
/// movetext (result `*`).
fn check(name: &str, movetext: &str) -> Verdict {
    let text = format!(
        "[Game \"Khan\"]\n[Variant \"Fuzz\"]\n[GameId \"f\"]\n[Date \"2026.01.01\"]\n\
         [NotationVersion \"1\"]\n[White \"W\"]\n[Black \"B\"]\n[Ruleset \"{name}\"]\n\
         [Result \"*\"]\n\n{movetext}*\n"
    );
    let read = |checker: &mut Checker| {
        yam_notation::Reader::new(text.as_bytes())
            .read_game(checker)
            .expect("a record of canonical tokens reads")
            .expect("one game")
    };
    let fresh = read(&mut Checker::new());
    // A checker keeps a Khan game's boxes and its rulesets for the next
    // game: the one kept across this run's inputs, after whatever games
    // they were, gives the same report as a new one.
    let kept = KEPT.with_borrow_mut(read);
    assert_eq!(format!("{kept:?}"), format!("{fresh:?}"), "{text}");
    fresh.verdict
}

thread_local! {
    /// One checker for every input of the run.
    static KEPT: std::cell::RefCell<Checker> = std::cell::RefCell::new(Checker::new());
}

/// Parses `word`; a token read prints and reads back the same.
fn token(word: &str) -> Option<MoveToken> {
    let token = MoveToken::parse(word).ok()?;
    let printed = token.to_string();
    assert_eq!(
        MoveToken::parse(&printed),
        Ok(token),
        "{word:?} printed {printed:?}"
    );
    assert_eq!(printed.parse::<MoveToken>(), Ok(token));
    Some(token)
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    token(text);
    let Some(&first) = data.first() else {
        return;
    };
    let starts = starts();
    let start = usize::from(first) % starts.len();
    let mut pos = starts[start];
    // The moves played, as a record's movetext; the last one's position
    // before it and its move; the first token refused, with why.
    let mut movetext = String::new();
    let mut last: Option<(Position, String)> = None;
    let mut refused: Option<(String, String)> = None;
    for word in text.split_whitespace().take(MAX_PLIES) {
        if outcome(&pos).is_some() {
            break;
        }
        if let Ok(n) = word.parse::<usize>() {
            // A legal move, by number.
            let moves = legal_moves(&pos);
            let Some(mv) = moves.get(n % moves.len().max(1)) else {
                break;
            };
            let written =
                to_token(&pos, mv).unwrap_or_else(|e| panic!("legal {mv:?} refused: {e}"));
            let read = token(&written.to_string()).expect("a canonical token reads");
            assert_eq!(resolve(&pos, &read).as_ref(), Ok(mv), "{written}");
            if refused.is_none() {
                movetext.push_str(&numbered(&pos, &written));
                last = Some((pos, written.to_string()));
            }
            pos = apply(&pos, mv)
                .unwrap_or_else(|e| panic!("legal {mv:?} refused: {e}"))
                .position;
            continue;
        }
        let Some(written) = token(word) else {
            continue;
        };
        let resolved = resolve(&pos, &written);
        let mut next = pos;
        let resolved_into = resolve_into(&pos, &written, &mut next);
        assert_eq!(resolved, resolved_into, "{written}");
        let Ok(mv) = resolved else {
            if let Err(why) = &resolved
                && refused.is_none()
            {
                refused = Some((numbered(&pos, &written), why.to_string()));
            }
            continue;
        };

        assert!(
            legal_moves(&pos).contains(&mv),
            "{written} is not a legal move"
        );
        assert_eq!(to_token(&pos, &mv), Ok(written));
        let applied =
            apply(&pos, &mv).unwrap_or_else(|e| panic!("{written} resolved but refused: {e}"));
        assert!(
            applied.position == next,
            "{written}: resolve_into and apply differ"
        );
        // Past the first refusal the checker looks no further.
        if refused.is_none() {
            movetext.push_str(&numbered(&pos, &written));
            last = Some((pos, written.to_string()));
        }
        pos = applied.position;
    }
    let name = BUILTIN[start].0;
    if refused.is_none() && outcome(&pos).is_some() {
        // The record would need the game's result; not what is held here.
        return;
    }
    match refused {
        None => {
            // A variation on the last move, from the position before it:
            // that move again.
            if let Some((before, token)) = &last {
                let again = MoveToken::parse(token).expect("a canonical token reads");
                movetext.push_str(&format!("({})", numbered(before, &again).trim_end()));
                movetext.push(' ');
            }
            let verdict = check(name, &movetext);
            assert!(verdict == Verdict::Legal, "{movetext}: {verdict:?}");
        }
        Some((written, why)) => {
            movetext.push_str(&written);
            match check(name, &movetext) {
                Verdict::Illegal(v) => assert_eq!(v.reason, why, "{movetext}"),
                verdict => panic!("{movetext}: {verdict:?}, not refused ({why})"),
            }
        }
    }
});
