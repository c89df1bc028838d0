//! Castle Siege tokens (orders and setups) and declarations, as players
//! write them in mails and records.
//!
//! - Any text, whole and word by word: `Token::parse` never panics, and a
//!   token it reads prints canonically and reads back the same; a setup
//!   token that makes a setup gives canonical bytes that read back as it.
//! - Each line a declaration, played in turn from the start of a built-in
//!   ruleset (the first byte picks it and the setups): a word that is a
//!   number is that legal order (modulo their count), and a line `auto`
//!   the self-play driver's declaration, so games go deep. Declaring and
//!   resolving never panic; `check` refuses exactly what `resolve`
//!   refuses before any die; a resolved declaration reports one outcome
//!   per order, whose tokens print and read back.

#![no_main]

#[path = "dice.rs"]
mod dice;

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use yam_referee::castle_siege::ruleset::BUILTIN;
use yam_referee::castle_siege::selfplay::{Policy, choose_declaration, choose_setup};
use yam_referee::castle_siege::{
    Declaration, Mark, Order, ResolveError, Ruleset, Setup, Side, State, Token, check,
    legal_orders, resolve,
};

use dice::Dice;

/// The most declarations one input plays.
const MAX_DECLARATIONS: usize = 200;

fn rulesets() -> &'static [Ruleset] {
    static RULESETS: OnceLock<Vec<Ruleset>> = OnceLock::new();
    RULESETS.get_or_init(|| {
        BUILTIN
            .iter()
            .map(|(name, _)| {
                Ruleset::builtin(name).unwrap_or_else(|e| panic!("built-in ruleset {name}: {e}"))
            })
            .collect()
    })
}

/// Parses `word`; a token read prints and reads back the same.
fn token(word: &str) -> Option<Token> {
    let token = Token::parse(word).ok()?;
    let printed = token.to_string();
    assert_eq!(
        Token::parse(&printed).as_ref(),
        Ok(&token),
        "{word:?} printed {printed:?}"
    );
    match &token {
        Token::Order {
            order,
            mark: Mark::Plain,
        } => assert_eq!(word.parse::<Order>(), Ok(*order)),
        Token::Order { .. } | Token::Sealed(_) | Token::Setup(_) => {
            assert!(word.parse::<Order>().is_err())
        }
    }
    if let Token::Setup(placement) = &token
        && let Ok(setup) = Setup::new(placement.clone())
    {
        assert_eq!(setup.token(), token);
        let bytes = setup.canonical_bytes();
        assert_eq!(
            Setup::from_canonical_bytes(setup.side(), &bytes).as_ref(),
            Ok(&setup)
        );
    }
    Some(token)
}

fn start(first: u8) -> Option<State> {
    let rulesets = rulesets();
    let ruleset = &rulesets[usize::from(first) % rulesets.len()];
    let seed = u64::from(first);
    let defender = choose_setup(Side::Defender, seed).ok()?;
    let attacker = choose_setup(Side::Attacker, seed).ok()?;
    State::new(ruleset.rules.clone(), &defender, &attacker).ok()
}

fn declaration(state: &State, line: &str, index: usize) -> Option<Declaration> {
    if line.trim() == "auto" {
        return Some(choose_declaration(state, Policy::Random, index as u64));
    }
    let mut tokens = Vec::new();
    for word in line.split_whitespace() {
        if let Ok(n) = word.parse::<usize>() {
            let orders = legal_orders(state);
            tokens.push(Token::declared(*orders.get(n % orders.len().max(1))?));
        } else {
            tokens.push(token(word)?);
        }
    }
    let declared = Declaration::from_tokens(&tokens);
    if let Ok(d) = &declared {
        assert_eq!(d.orders().len(), tokens.len());
        assert_eq!(
            d.texts(),
            tokens.iter().map(Token::to_string).collect::<Vec<_>>()
        );
    }
    declared.ok()
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    token(text);
    for word in text.split_whitespace() {
        token(word);
    }
    let Some(&first) = data.first() else {
        return;
    };
    let Some(mut state) = start(first) else {
        return;
    };
    let mut dice = Dice::new(u64::from(first));
    for (index, line) in text.lines().enumerate().take(MAX_DECLARATIONS) {
        if state.outcome().is_some() {
            break;
        }
        let Some(declared) = declaration(&state, line, index) else {
            continue;
        };
        let checked = check(&state, &declared);
        match resolve(&state, &declared, &mut dice) {
            Ok(resolution) => {
                assert_eq!(checked, Ok(()));
                assert_eq!(resolution.report.len(), declared.orders().len());
                for (i, (done, order)) in
                    resolution.report.iter().zip(declared.orders()).enumerate()
                {
                    assert_eq!(done.index, i);
                    assert_eq!(&done.order, order);
                }
                for written in resolution.tokens() {
                    let printed = written.to_string();
                    assert_eq!(Token::parse(&printed), Ok(written), "{printed}");
                }
                state = resolution.state;
            }
            Err(ResolveError::Refused(refusal)) => assert_eq!(checked, Err(refusal)),
            Err(e) => panic!("the dice cannot fail: {e}"),
        }
    }
});
