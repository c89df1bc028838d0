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

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use yam_notation::khan::MoveToken;
use yam_referee::khan::ruleset::BUILTIN;
use yam_referee::khan::{
    Position, Ruleset, apply, legal_moves, outcome, resolve, resolve_into, to_token,
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
    let mut pos = starts[usize::from(first) % starts.len()];
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
        pos = applied.position;
    }
});
