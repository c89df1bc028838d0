//! One game of an archive, found by its number: the games before it are
//! read by the streaming reader and forgotten, the games after it are never
//! read. Memory is bounded by the largest game, whatever the archive's
//! size; a bad game before the one asked for is counted and passed, as
//! `yam check` counts it (the reader's own recovery, so the numbers are
//! `check`'s).

use std::io;
use std::path::Path;

use yam_notation::{ParseError, ReadError, Reader, Visitor};

use super::progress::bytes_bar;

/// What the archive holds at the number asked for.
#[derive(Debug)]
pub(crate) enum Nth<T> {
    /// The game, as the visitor made it.
    Game(T),
    /// The game is there but does not parse (positions in the file's terms).
    Syntax(Box<ParseError>),
    /// The archive ends first: it holds this many games.
    Missing(u64),
}

/// Why an archive could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ArchiveError {
    /// The file could not be opened.
    #[error("cannot open: {0}")]
    Open(#[source] io::Error),
    /// Its bytes could not be read.
    #[error("read error: {0}")]
    Read(#[source] io::Error),
}

impl ArchiveError {
    /// What was being done, for [`crate::error::Error::io`].
    pub(crate) fn action(&self) -> &'static str {
        match self {
            ArchiveError::Open(_) => "cannot open",
            ArchiveError::Read(_) => "read error",
        }
    }

    /// The I/O error itself.
    pub(crate) fn into_io(self) -> io::Error {
        match self {
            ArchiveError::Open(e) | ArchiveError::Read(e) => e,
        }
    }
}

/// One game of an archive, read once as a record and by `yam check`'s
/// checker.
#[derive(Debug)]
pub(crate) struct OneGame {
    /// The record.
    pub record: yam_notation::Record<String>,
    /// What the rules found (following the take-backs of a signed game
    /// whose events verify, as `yam check` does).
    pub report: yam_referee::check::GameReport,
    /// The events accepted take-backs undid, when the game is signed and
    /// verifies ([`yam_referee::signed::Verified::taken_back`]): the moves
    /// they hold are in the record's main line but not in the game.
    pub taken_back: Vec<std::ops::RangeInclusive<u32>>,
}

impl OneGame {
    /// The game as it stands: the record, with the moves accepted
    /// take-backs undid written as a comment where they were played, as a
    /// plain export writes them (they stay in a signed record's main line,
    /// each with its event). The record itself when nothing was taken back.
    pub(crate) fn standing(&self) -> std::borrow::Cow<'_, yam_notation::Record<String>> {
        yam_referee::signed::write::standing(&self.record, &self.taken_back)
    }

    /// The rules' verdict on the whole game, as `yam check` gives it: a
    /// game that breaks them is reported as `yam check` reports it (framed
    /// from the file) and is [`crate::error::Status::Invalid`]. The
    /// one-game commands (`show`, `engine export`) show what was asked and
    /// then answer with this, so that no command calls good a game another
    /// refuses.
    pub(crate) fn rules_verdict(&self, path: &Path, number: usize) -> crate::error::Status {
        use crate::error::Status;
        match &self.report.verdict {
            yam_referee::check::Verdict::Illegal(v) => {
                let frame = crate::diagnostics::frame_from_file(path, v.span.start);
                eprint!(
                    "{}",
                    crate::diagnostics::render_violation(
                        path,
                        number as u64,
                        &self.report,
                        v,
                        frame.as_ref()
                    )
                );
                Status::Invalid
            }
            _ => Status::Valid,
        }
    }
}

/// Game `number` (from 1) of the archive at `path` as a record with the
/// rules' report, for a command that shows or exports one game: one pass
/// over the archive (it may be a pipe); a bad game is reported as `yam
/// check` reports it (framed from around the fault, read once) and is
/// [`Status::Invalid`]; a number past the end is a usage error naming how
/// many games the file holds.
pub(crate) fn record_of(path: &Path, number: usize) -> Result<OneGame, crate::error::Error> {
    use crate::error::{Error, Status};
    let checker = yam_referee::check::Checker::with_rulesets(Box::new(
        crate::game::rulesets::RecordRulesets::beside(path),
    ));
    // The signed view too: a game with a take-back is read as its events
    // have it.
    let mut all = yam_notation::Both(
        yam_notation::Both(
            yam_notation::RecordBuilder::<yam_notation::RawGrammar>::new(),
            checker,
        ),
        yam_referee::signed::Collector::new(),
    );
    match nth_game(path, number as u64, &mut all) {
        Ok(Nth::Game(((record, mut report), signed))) => {
            // Only a game the literal reading refuses can have a take-back
            // to follow: a signed game is not verified to be shown.
            let mut taken_back = Vec::new();
            if matches!(report.verdict, yam_referee::check::Verdict::Illegal(_))
                && signed.is_signed()
                && let yam_referee::signed::Verdict::Verified(verified) =
                    yam_referee::signed::verify_text(
                        &signed,
                        &crate::game::rulesets::RecordRulesets::beside(path),
                    )
            {
                yam_referee::signed::follow_takebacks(&mut report, &verified, signed.variations);
                taken_back = verified.taken_back;
            }
            Ok(OneGame {
                record,
                report,
                taken_back,
            })
        }
        Ok(Nth::Syntax(e)) => {
            let frame = crate::diagnostics::frame_from_file(path, e.pos);
            eprint!(
                "{}",
                crate::diagnostics::render_syntax(path, &e, frame.as_ref())
            );
            Err(Error::Reported(Status::Invalid))
        }
        Ok(Nth::Missing(held)) => Err(Error::usage(format!(
            "{}: there is no game {number} (the file holds {held})",
            path.display()
        ))),
        Err(e) => Err(Error::io(path, e.action(), e.into_io())),
    }
}

/// Passes the games before the one wanted: reads them, builds nothing.
#[derive(Debug, Default)]
struct Pass;

impl Visitor for Pass {
    type Output = ();
    fn end_game(&mut self) {}
}

/// Game `number` (1 is the first) of the archive at `path` (`-`: standard
/// input, as every command that reads an archive takes it), read into
/// `visitor`. A progress bar runs on a terminal while a large archive is
/// passed through.
pub(crate) fn nth_game<V: Visitor>(
    path: &Path,
    number: u64,
    visitor: &mut V,
) -> Result<Nth<V::Output>, ArchiveError> {
    let (file, size) = super::open_input(path).map_err(ArchiveError::Open)?;
    let progress = bytes_bar(size);
    let found = nth_of(file, number, visitor, |bytes| progress.set_position(bytes));
    progress.finish_and_clear();
    found
}

/// As [`nth_game`], from any reader; `passed` hears how many bytes are
/// behind after each game passed.
pub(crate) fn nth_of<V: Visitor>(
    input: impl io::Read,
    number: u64,
    visitor: &mut V,
    mut passed: impl FnMut(u64),
) -> Result<Nth<V::Output>, ArchiveError> {
    let mut reader = Reader::new(input);
    if number == 0 {
        return Ok(Nth::Missing(0));
    }
    let mut pass = Pass;
    while reader.games_read() + 1 < number {
        match reader.read_game(&mut pass) {
            Ok(Some(())) | Err(ReadError::Syntax(_)) => passed(reader.bytes_read()),
            Ok(None) => return Ok(Nth::Missing(reader.games_read())),
            Err(ReadError::Io(e)) => return Err(ArchiveError::Read(e)),
        }
    }
    match reader.read_game(visitor) {
        Ok(Some(game)) => Ok(Nth::Game(game)),
        Ok(None) => Ok(Nth::Missing(reader.games_read())),
        Err(ReadError::Syntax(e)) => Ok(Nth::Syntax(e)),
        Err(ReadError::Io(e)) => Err(ArchiveError::Read(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use yam_notation::{RawGrammar, RecordBuilder};

    fn game(id: usize) -> String {
        format!(
            "[Game \"Khan\"]\n[Variant \"Magician\"]\n[Ruleset \"magician\"]\n[NotationVersion \"1\"]\n[GameId \"g{id}\"]\n\
             [Date \"2026.01.01\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n\n1. Ng3-f3 *\n\n"
        )
    }

    fn id_of(text: &str, n: u64) -> Result<String, String> {
        let mut builder = RecordBuilder::<RawGrammar>::new();
        match nth_of(text.as_bytes(), n, &mut builder, |_| {}).unwrap() {
            Nth::Game(r) => Ok(r.tags.get("GameId").unwrap_or_default().to_owned()),
            Nth::Syntax(e) => Err(format!("syntax {} line {}", e.game, e.pos.line)),
            Nth::Missing(n) => Err(format!("missing {n}")),
        }
    }

    #[test]
    fn finds_each_game_and_counts_bad_ones() {
        let bad = game(3).replace("1. ", "1. $ ");
        let text = format!("{}{}{bad}{}", game(1), game(2), game(4));
        assert_eq!(id_of(&text, 1), Ok("g1".into()));
        assert_eq!(id_of(&text, 2), Ok("g2".into()));
        assert_eq!(id_of(&text, 3), Err("syntax 3 line 35".into()));
        assert_eq!(id_of(&text, 4), Ok("g4".into()));
        assert_eq!(id_of(&text, 5), Err("missing 4".into()));
        assert_eq!(id_of(&text, 0), Err("missing 0".into()));
    }

    #[test]
    fn never_reads_past_the_game() {
        // A reader that fails past the first game: never reached.
        let text = game(1);
        let input = io::Read::chain(text.as_bytes(), Failing);
        let mut builder = RecordBuilder::<RawGrammar>::new();
        assert!(matches!(
            nth_of(input, 1, &mut builder, |_| {}),
            Ok(Nth::Game(_))
        ));
    }

    struct Failing;
    impl io::Read for Failing {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::Error::other("read past the game"))
        }
    }
}
