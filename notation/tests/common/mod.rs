//! A small game grammar for exercising the plug-in point before the real
//! games exist: from-to moves (`Wg4-f5`, `a5xa4`) and named payments
//! (`pay:"Meat, Milk & Blood"`).

#![allow(dead_code)]

use nom::{
    IResult, Parser,
    branch::alt,
    bytes::complete::tag_no_case,
    character::complete::{one_of, satisfy},
    combinator::{all_consuming, map, opt},
};
use yam_notation::{MoveGrammar, TokenError, quote};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToyMove {
    Step {
        piece: Option<char>,
        from: (char, char),
        capture: bool,
        to: (char, char),
    },
    Pay(String),
}

#[derive(Debug)]
pub struct Toy;

fn square(i: &str) -> IResult<&str, (char, char)> {
    (one_of("abcdefgh"), one_of("12345678")).parse(i)
}

fn step(i: &str) -> IResult<&str, ToyMove> {
    map(
        (
            opt(satisfy(|c| "KFWAMSN".contains(c))),
            square,
            alt((map(one_of("-"), |_| false), map(one_of("x"), |_| true))),
            square,
        ),
        |(piece, from, capture, to)| ToyMove::Step {
            piece,
            from,
            capture,
            to,
        },
    )
    .parse(i)
}

fn pay(i: &str) -> IResult<&str, ToyMove> {
    let (i, _) = tag_no_case("pay:").parse(i)?;
    map(quote::name, ToyMove::Pay).parse(i)
}

impl MoveGrammar for Toy {
    type Move = ToyMove;
    const GAME: &'static str = "Khan";

    fn parse_move(token: &str) -> Result<ToyMove, TokenError> {
        all_consuming(alt((pay, step)))
            .parse(token)
            .map(|(_, m)| m)
            .map_err(|e| {
                let offset = match &e {
                    nom::Err::Error(e) | nom::Err::Failure(e) => token.len() - e.input.len(),
                    nom::Err::Incomplete(_) => token.len(),
                };
                TokenError::new(offset, "a toy move such as Wg4-f5, a5xa4 or pay:\"Name\"")
            })
    }

    fn write_move(mv: &ToyMove, out: &mut String) {
        match mv {
            ToyMove::Step {
                piece,
                from,
                capture,
                to,
            } => {
                if let Some(p) = piece {
                    out.push(*p);
                }
                out.push(from.0);
                out.push(from.1);
                out.push(if *capture { 'x' } else { '-' });
                out.push(to.0);
                out.push(to.1);
            }
            ToyMove::Pay(name) => {
                out.push_str("pay:");
                quote::write_name(name, out);
            }
        }
    }
}

/// A valid header for a Khan game with the given id and result.
pub fn header(id: &str, result: &str) -> String {
    format!(
        "[Game \"Khan\"]\n[Variant \"Magician\"]\n[GameId \"{id}\"]\n[Date \"2026.11.29\"]\n[White \"Ann\"]\n[Black \"Bo\"]\n[Result \"{result}\"]\n[NotationVersion \"1\"]\n[Ruleset \"magician\"]\n\n"
    )
}
