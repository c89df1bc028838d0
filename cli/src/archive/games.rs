//! The games of an archive piece one by one, each as its text (exactly as
//! written) and its record: what the commands that copy, select or
//! rewrite games work from (`yam select`, `yam fmt`).

use yam_notation::split::Piece;
use yam_notation::{ParseError, RawGrammar, ReadError, Reader, RecordBuilder};

use super::{frame_in_piece, shift_pos};
use crate::diagnostics::Frame;

/// One game of a piece.
#[derive(Debug)]
pub(crate) struct GameText {
    /// Its text as written, from its first tag to its result line, without
    /// the blank lines around it.
    pub text: Vec<u8>,
    /// The record, or why it does not parse (positions in the file's
    /// terms) with the text around the fault.
    pub record: Result<yam_notation::Record<String>, (Box<ParseError>, Box<Frame>)>,
}

/// The games of `piece`, in order.
pub(crate) fn games_of(piece: &Piece) -> Vec<GameText> {
    let mut reader = Reader::new(&piece.bytes[..]);
    let mut builder = RecordBuilder::<RawGrammar>::new();
    let mut out = Vec::new();
    let mut start = 0usize;
    loop {
        let read = reader.read_game(&mut builder);
        let end = usize::try_from(reader.bytes_read())
            .unwrap_or(piece.bytes.len())
            .min(piece.bytes.len());
        let text = piece.bytes[start.min(end)..end].trim_ascii().to_vec();
        start = end;
        let record = match read {
            Ok(None) | Err(ReadError::Io(_)) => return out,
            Ok(Some(record)) => Ok(record),
            Err(ReadError::Syntax(mut e)) => {
                shift_pos(piece, &mut e.pos);
                shift_pos(piece, &mut e.game_start);
                let frame = frame_in_piece(piece, e.pos);
                Err((e, frame))
            }
        };
        out.push(GameText { text, record });
    }
}
