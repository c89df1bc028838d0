//! Helpers shared by the Khan tests.

use yam_notation::khan::MoveToken;

use crate::khan::{Applied, Options, Position, Rules, Ruleset, Square, apply, diagram, resolve};

/// A standard ruleset by name.
pub fn ruleset(name: &str) -> Ruleset {
    Ruleset::builtin(name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A standard ruleset's start position.
pub fn start(name: &str) -> Position {
    ruleset(name).start_position()
}

/// The standard camps with the given options.
pub fn rules_with(options: Options) -> Rules {
    Rules {
        options,
        ..ruleset("magician").rules
    }
}

/// A position from Yam text under the standard camps and `options`.
pub fn pos_with(text: &str, options: Options) -> Position {
    Position::from_yam(text, rules_with(options)).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// A square by name.
pub fn sq(name: &str) -> Square {
    name.parse().unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A Yam position text from a piece list such as `"Kh1 Fg1 ka8 fb8"`
/// (letter case gives the side), the side to move and any siege fields.
pub fn text(pieces: &str, turn: char, siege: &str) -> String {
    let mut board = [None; 64];
    for item in pieces.split_whitespace() {
        let mut chars = item.chars();
        let letter = chars.next().unwrap_or('?');
        let square: Square = chars
            .as_str()
            .parse()
            .unwrap_or_else(|e| panic!("{item}: {e}"));
        let piece = yam_notation::khan::Piece::from_fen_char(letter)
            .unwrap_or_else(|| panic!("{item}: bad letter"));
        board[square.index()] = Some(piece);
    }
    let fen = yam_notation::khan::EngineFen {
        board,
        side: if turn == 'b' {
            yam_notation::khan::Side::Black
        } else {
            yam_notation::khan::Side::White
        },
        halfmoves: 0,
        fullmoves: 1,
    };
    if siege.is_empty() {
        fen.to_string()
    } else {
        format!("{fen} {siege}")
    }
}

/// [`text`] read under the standard camps and `options`.
pub fn setup(pieces: &str, turn: char, siege: &str, options: Options) -> Position {
    pos_with(&text(pieces, turn, siege), options)
}

/// [`setup`] with default options.
pub fn board(pieces: &str, turn: char) -> Position {
    setup(pieces, turn, "", Options::default())
}

/// The standard Rescue Khan siege fields with every tower square manned.
pub const RESCUE_KHAN: &str = "towers=h5h6h7:wk,a2a3a4:bk manned=a2a3a4h5h6h7 gers=a1:w,h8:b";

/// Resolve and apply a written token, or fail the test saying why not.
pub fn play(pos: &Position, token: &str) -> Applied {
    let t = MoveToken::parse(token).unwrap_or_else(|e| panic!("{token}: {e}"));
    let mv = resolve(pos, &t).unwrap_or_else(|e| panic!("{token} refused: {e}\n{}", diagram(pos)));
    apply(pos, &mv).unwrap_or_else(|e| panic!("{token}: resolved but not applied: {e}"))
}

/// Play a sequence of tokens.
pub fn play_all(pos: &Position, tokens: &str) -> Position {
    tokens
        .split_whitespace()
        .fold(*pos, |p, t| play(&p, t).position)
}

/// Assert that a written token is refused, with a reason containing `why`.
pub fn refused(pos: &Position, token: &str, why: &str) {
    let t = MoveToken::parse(token).unwrap_or_else(|e| panic!("{token}: {e}"));
    match resolve(pos, &t) {
        Ok(_) => panic!("{token} was accepted, expected: {why}\n{}", diagram(pos)),
        Err(e) => assert!(
            e.to_string().contains(why),
            "{token}: refused with \"{e}\", expected \"{why}\""
        ),
    }
}
