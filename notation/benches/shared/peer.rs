//! pgn-reader 0.29 and shakmaty 0.30, the peer of Yam's benchmarks: one
//! visitor that only parses, one that validates every move. Shared by
//! `notation/benches/throughput.rs` and `cli/benches/archive.rs`
//! (`#[path]`), so both measure the peer the same way.

use std::hint::black_box;
use std::ops::ControlFlow;

use pgn_reader::{RawTag, SanPlus, Visitor};
use shakmaty::{CastlingMode, Chess, Position, fen::Fen};

/// Does nothing (pgn-reader still parses each move's SAN).
pub struct Nothing;

impl Visitor for Nothing {
    type Tags = ();
    type Movetext = ();
    type Output = ();
    fn begin_tags(&mut self) -> ControlFlow<(), ()> {
        ControlFlow::Continue(())
    }
    fn begin_movetext(&mut self, _tags: ()) -> ControlFlow<(), ()> {
        ControlFlow::Continue(())
    }
    fn end_game(&mut self, _movetext: ()) {}
}

#[derive(Default)]
pub struct CountMoves {
    pub moves: u64,
    pub games: u64,
}

impl Visitor for CountMoves {
    type Tags = ();
    type Movetext = ();
    type Output = ();
    fn begin_tags(&mut self) -> ControlFlow<(), ()> {
        ControlFlow::Continue(())
    }
    fn begin_movetext(&mut self, _tags: ()) -> ControlFlow<(), ()> {
        ControlFlow::Continue(())
    }
    fn san(&mut self, _movetext: &mut (), _san: SanPlus) -> ControlFlow<()> {
        self.moves += 1;
        ControlFlow::Continue(())
    }
    fn end_game(&mut self, _movetext: ()) {
        self.games += 1;
    }
}

/// Plays every move with shakmaty, as pgn-reader's `validate` example.
pub struct Validate;

impl Visitor for Validate {
    type Tags = Option<Chess>;
    type Movetext = Chess;
    type Output = bool;

    fn begin_tags(&mut self) -> ControlFlow<bool, Option<Chess>> {
        ControlFlow::Continue(None)
    }

    fn tag(
        &mut self,
        tags: &mut Option<Chess>,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<bool> {
        if name == b"FEN" {
            let Some(pos) = Fen::from_ascii(value.as_bytes())
                .ok()
                .and_then(|fen| fen.into_position(CastlingMode::Chess960).ok())
            else {
                return ControlFlow::Break(false);
            };
            *tags = Some(pos);
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Option<Chess>) -> ControlFlow<bool, Chess> {
        ControlFlow::Continue(tags.unwrap_or_default())
    }

    fn san(&mut self, pos: &mut Chess, san_plus: SanPlus) -> ControlFlow<bool> {
        match san_plus.san.to_move(pos) {
            Ok(m) => {
                pos.play_unchecked(m);
                ControlFlow::Continue(())
            }
            Err(_) => ControlFlow::Break(false),
        }
    }

    fn end_game(&mut self, _pos: Chess) -> bool {
        true
    }
}

pub fn read_all<V: Visitor<Output = O>, O>(data: &[u8], visitor: &mut V) {
    let mut reader = pgn_reader::Reader::new(data);
    while let Some(out) = reader.read_game(visitor).expect("in memory") {
        black_box(out);
    }
}
