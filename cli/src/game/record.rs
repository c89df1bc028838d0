//! Reading a signed record: each game's signed view (and, in the same
//! pass, its owned record), as `verify`, the desk, the robot and the
//! hot-seat harness all read one.

use std::borrow::Cow;
use std::cell::RefCell;
use std::io::{self, Read};
use std::path::Path;

use yam_notation::{
    Dots, GameKind, GameResult, Nag, ParseError, RawComment, RawGrammar, RawTagValue, ReadError,
    Reader, Record, RecordBuilder, Skip, Span, TokenError, Visitor, parse_record, record_to_string,
};
use yam_referee::fair_play::turn::SignedEvent;
use yam_referee::signed::collect::Item;
use yam_referee::signed::prefix::PrefixDigest;
use yam_referee::signed::text::decode_event;
use yam_referee::signed::tip::{After, Bounds, replay_continued};
use yam_referee::signed::write::{append_events, append_verified, append_verified_in_place};
use yam_referee::signed::{
    Collector, Failure, Known, Rejected, SharedBytes, SignedReplay, SignedText, Tip,
    replay_text_continuing, replay_text_knowing,
};

use super::rulesets::RecordRulesets;

/// Every game of an archive, as its signed view or its syntax error.
pub fn read_signed(input: impl Read) -> io::Result<Vec<Result<SignedText, Box<ParseError>>>> {
    let mut reader = Reader::new(input);
    let mut collector = Collector::new();
    let mut games = Vec::new();
    loop {
        match reader.read_game(&mut collector) {
            Ok(None) => return Ok(games),
            Ok(Some(game)) => games.push(Ok(game)),
            Err(ReadError::Syntax(e)) => games.push(Err(e)),
            Err(ReadError::Io(e)) => return Err(e),
        }
    }
}

/// The signed view and the owned record of one game, read in one pass.
/// The record is `None` when only the record's stricter reading failed
/// (a malformed Date, say): the caller then parses the text once more to
/// say why, exactly as a plain parse would.
pub type SignedAndRecord = (SignedText, Option<Record<String>>);

/// As [`read_signed`], building each game's [`Record`] in the same pass:
/// a turn mail's record is both verified and kept, and reading it once
/// halves its parsing.
pub fn read_signed_with_record(
    input: impl Read,
) -> io::Result<Vec<Result<SignedAndRecord, Box<ParseError>>>> {
    let mut reader = Reader::new(input);
    let mut both = SignedWithRecord::new();
    let mut games = Vec::new();
    loop {
        match reader.read_game(&mut both) {
            Ok(None) => return Ok(games),
            Ok(Some(game)) => games.push(Ok(game)),
            Err(ReadError::Syntax(e)) => games.push(Err(e)),
            Err(ReadError::Io(e)) => return Err(e),
        }
    }
}

/// Feeds the reader's callbacks to the signed view and to the record.
/// Only the signed view's verdict stops the reading; the record's own
/// refusals are remembered and reported as the record being absent.
#[derive(Debug)]
pub struct SignedWithRecord {
    signed: Collector,
    record: RecordBuilder<RawGrammar>,
    record_failed: bool,
}

impl SignedWithRecord {
    /// A visitor ready for a game.
    pub fn new() -> SignedWithRecord {
        SignedWithRecord {
            signed: Collector::new(),
            record: RecordBuilder::new(),
            record_failed: false,
        }
    }
}

impl Default for SignedWithRecord {
    fn default() -> Self {
        Self::new()
    }
}

impl Visitor for SignedWithRecord {
    type Output = SignedAndRecord;

    fn begin_game(&mut self) {
        self.signed.begin_game();
        self.record.begin_game();
        self.record_failed = false;
    }

    fn tag(&mut self, name: &str, value: RawTagValue<'_>, span: Span) -> Result<(), TokenError> {
        if !self.record_failed && self.record.tag(name, value, span).is_err() {
            self.record_failed = true;
        }
        self.signed.tag(name, value, span)
    }

    fn end_tags(&mut self, game: GameKind) -> Result<Skip, Cow<'static, str>> {
        if !self.record_failed && self.record.end_tags(game).is_err() {
            self.record_failed = true;
        }
        self.signed.end_tags(game)
    }

    fn move_number(&mut self, number: u32, dots: Dots, span: Span) {
        self.signed.move_number(number, dots, span);
        self.record.move_number(number, dots, span);
    }

    fn token(&mut self, token: &str, span: Span) -> Result<(), TokenError> {
        if !self.record_failed && self.record.token(token, span).is_err() {
            self.record_failed = true;
        }
        self.signed.token(token, span)
    }

    fn nag(&mut self, nag: Nag, span: Span) {
        self.signed.nag(nag, span);
        self.record.nag(nag, span);
    }

    fn comment(&mut self, comment: RawComment<'_>, span: Span) {
        self.signed.comment(comment, span);
        self.record.comment(comment, span);
    }

    fn begin_variation(&mut self) -> Skip {
        // Neither skips a variation; the signed view decides all the same.
        self.record.begin_variation();
        self.signed.begin_variation()
    }

    fn end_variation(&mut self) {
        self.signed.end_variation();
        self.record.end_variation();
    }

    fn result(&mut self, result: GameResult, span: Span) {
        self.signed.result(result, span);
        self.record.result(result, span);
    }

    fn end_game(&mut self) -> SignedAndRecord {
        let record = self.record.end_game();
        (
            self.signed.end_game(),
            (!self.record_failed).then_some(record),
        )
    }
}

/// Why a record could not be taken as one verified signed game.
#[derive(Debug, thiserror::Error)]
pub enum RecordFault {
    /// Its bytes could not be read.
    #[error("cannot read the record: {0}")]
    Io(#[from] io::Error),
    /// It does not parse.
    #[error("the record does not parse: {0}")]
    Syntax(Box<ParseError>),
    /// It holds another number of games than one.
    #[error("a game's record holds one game, this one holds {0}")]
    NotOneGame(usize),
    /// It is not UTF-8.
    #[error("the record is not UTF-8")]
    NotUtf8,
    /// It holds no signed event.
    #[error("the record is not signed")]
    Unsigned,
    /// It does not verify.
    #[error(
        "the record does not verify: line {}, column {}, at {:?}: {}{}",
        .0.span.start.line,
        .0.span.start.column,
        .0.found,
        .0.reason,
        .0.event.map(|e| format!(" (event {e})")).unwrap_or_default()
    )]
    Failed(Box<Failure>),
}

/// Reads and verifies one signed game from `text`; `place` resolves
/// ruleset files (mail games use built-in rulesets). The text is read once
/// for both the signed view and the record.
pub fn verified(
    text: &[u8],
    place: &Path,
    known: Known<'_>,
) -> Result<(Record<String>, SignedReplay), RecordFault> {
    verified_with_view(text, place, known).map(|(record, _, replay)| (record, replay))
}

/// As [`verified`], with the signed view the replay was made from: a
/// record written after it is checked from there
/// ([`replay_text_continuing`]).
pub fn verified_with_view(
    text: &[u8],
    place: &Path,
    known: Known<'_>,
) -> Result<(Record<String>, SignedText, SignedReplay), RecordFault> {
    let games = read_signed_with_record(text)?;
    let (signed, record) = one_game(games)?;
    let replay = replay_of(&signed, place, known)?;
    let text = std::str::from_utf8(text).map_err(|_| RecordFault::NotUtf8)?;
    let record = match record {
        Some(record) => record,
        // Only the record's stricter reading failed: its own parse says why.
        None => parse_record::<RawGrammar>(text).map_err(RecordFault::Syntax)?,
    };
    Ok((record, signed, replay))
}

/// Checks `text`, a record about to be written whose events are those of
/// `after` (each verified in this process), as a whole: from the replay
/// `before` of the signed view `prefix` it continues, when there is one
/// ([`replay_text_continuing`]), else from its start. Returns its signed
/// view and replay.
pub fn checked_continuation(
    text: &str,
    place: &Path,
    after: &SignedReplay,
    from: Option<(&SignedText, &SignedReplay)>,
) -> Result<(SignedText, SignedReplay), RecordFault> {
    let known = Known::Log(after.events());
    let signed = one_game(read_signed(text.as_bytes())?)?;
    let replay = match from {
        Some((prefix, before)) => {
            let catalog = RecordRulesets::beside(place);
            replay_text_continuing(&signed, &catalog, known, prefix, before)?
        }
        None => replay_of(&signed, place, known)?,
    };
    Ok((signed, replay))
}

/// The signed events of a stored record, decoded but not replayed: what
/// the store holds was verified before it was written.
pub fn stored_events(text: &[u8]) -> Result<Vec<SignedEvent>, RecordFault> {
    decoded_events(&one_game(read_signed(text)?)?)
}

/// As [`stored_events`], with the record read in the same pass (`None` if
/// only its stricter reading failed): a turn mail continuing the game
/// appends to it ([`continue_kept`]).
pub fn stored_events_and_record(
    text: &[u8],
) -> Result<(Vec<SignedEvent>, Option<Record<String>>), RecordFault> {
    let (signed, record) = one_game(read_signed_with_record(text)?)?;
    Ok((decoded_events(&signed)?, record))
}

fn decoded_events(signed: &SignedText) -> Result<Vec<SignedEvent>, RecordFault> {
    let mut events = Vec::new();
    for item in &signed.items {
        if let Item::Event { args, span, .. } = item {
            let event = decode_event(args).map_err(|reason| {
                RecordFault::Failed(Box::new(Failure {
                    span: *span,
                    found: "[%event".to_owned(),
                    reason: reason.to_string(),
                    help: None,
                    event: u32::try_from(events.len()).ok(),
                }))
            })?;
            events.push(event);
        }
    }
    Ok(events)
}

/// As [`verified`], for a text whose record is not needed (a record about
/// to be written, checked once more as a whole): the signed view only.
pub fn verified_replay(
    text: &[u8],
    place: &Path,
    known: Known<'_>,
) -> Result<SignedReplay, RecordFault> {
    let games = read_signed(text)?;
    let signed = one_game(games)?;
    replay_of(&signed, place, known)
}

fn one_game<T>(games: Vec<Result<T, Box<ParseError>>>) -> Result<T, RecordFault> {
    let count = games.len();
    let mut games = games.into_iter();
    match (games.next(), count) {
        (Some(Ok(one)), 1) => Ok(one),
        (Some(Err(e)), 1) => Err(RecordFault::Syntax(e)),
        _ => Err(RecordFault::NotOneGame(count)),
    }
}

fn replay_of(
    signed: &SignedText,
    place: &Path,
    known: Known<'_>,
) -> Result<SignedReplay, RecordFault> {
    Ok(replay_text_knowing(
        signed,
        &RecordRulesets::beside(place),
        known,
    )?)
}

impl From<Rejected> for RecordFault {
    fn from(rejected: Rejected) -> Self {
        match rejected {
            Rejected::Unsigned => RecordFault::Unsigned,
            Rejected::Failed(f) => RecordFault::Failed(f),
        }
    }
}

/// Appends `events` (each proven against `before`, which is the replay
/// before them) to `record`, with `prose` in the comment after the first
/// turn, and verifies the new text once more as a whole before anyone
/// writes it: what a client is about to write always verifies. Returns the
/// new text, its signed view and its replay. A failure is a defect of
/// Yam's, never a player's error.
///
/// `prefix` is the signed view `before` was replayed from, if it was read
/// from a text (an [`Appended::signed`] or a [`Loaded::signed`] beside its
/// replay): the new text's walk then continues from `before` where its
/// items begin with the prefix's, instead of replaying the whole game
/// again ([`replay_text_continuing`]); the verdict is the same.
pub fn append_checked(
    record: &mut Record<String>,
    before: &SignedReplay,
    prefix: Option<&SignedText>,
    events: &[SignedEvent],
    prose: Option<&str>,
    place: &Path,
) -> Result<Appended, Defect> {
    let after = append_events(record, before, events, prose).map_err(Defect::Append)?;
    let text = record_to_string::<RawGrammar>(record);
    // Every event of `after` had its signature checked in this process
    // (`before` was verified, the new ones proven by `append_events`): the
    // text is checked whole against them, and no signature twice.
    let (signed, replay) = checked_continuation(&text, place, &after, prefix.map(|p| (p, before)))
        .map_err(Defect::Written)?;
    // The replay of the text as written, for the next turn to continue.
    Ok(Appended {
        text,
        signed,
        replay,
    })
}

/// A record with new events, verified: what [`append_checked`] returns.
#[derive(Debug)]
pub struct Appended {
    /// The new record's text, to be written.
    pub text: String,
    /// Its signed view.
    pub signed: SignedText,
    /// Its replay.
    pub replay: SignedReplay,
}

/// Refuses to write a record that does not verify as a whole.
pub fn check_written(text: &str, place: &Path) -> Result<(), Defect> {
    verified_replay(text.as_bytes(), place, Known::Nothing)
        .map(|_| ())
        .map_err(Defect::Written)
}

/// A record Yam was about to write did not verify: a defect of Yam's.
#[derive(Debug, thiserror::Error)]
pub enum Defect {
    /// An event could not be appended.
    #[error("internal error: {0}")]
    Append(yam_referee::signed::ReplayError),
    /// The new record does not verify as a whole.
    #[error("internal error: the new record: {0}")]
    Written(RecordFault),
}

/// A signed game file read and replayed, for a client that works on a
/// file (the hot-seat harness).
#[derive(Debug)]
pub struct Loaded {
    /// The record: its header always; its movetext only when the whole
    /// text was read (not when the replay came from the game's tip), see
    /// [`Loaded::whole_record`].
    pub record: Record<String>,
    /// Its replay, verified.
    pub replay: SignedReplay,
    /// The signed view the replay was made from, when the whole text was
    /// read: a record written after it is checked from there
    /// ([`append_checked`]).
    pub signed: SignedText,
    /// Where the client keeps its verified checkpoint of the game, if it
    /// keeps one ([`super::checkpoint`]); its tip is kept beside it.
    pub checkpoint: Option<std::path::PathBuf>,
    /// The record's text, as read or as last written.
    pub text: String,
    /// Where new events go in `text`, if they can be appended to it
    /// ([`Bounds`]).
    pub bounds: Option<Bounds>,
    /// Whether `record` and `signed` hold the whole text (else the header
    /// and nothing: the replay was restored from the game's tip).
    whole: bool,
    /// The digest of the first bytes of the text the last tip read or
    /// written was of: the next tip is written from it while the text
    /// keeps those bytes (`Tip::write` checks that it does, by BLAKE3;
    /// a digest restored with its tip keeps the state of that check and
    /// is taken at its word, `PrefixDigest::check_keeping`, so a text
    /// printed anew forgets that state: [`append_turn`]).
    digest: RefCell<Option<PrefixDigest>>,
}

impl Loaded {
    /// Keeps the checkpoint and the tip of what `replay` (this game,
    /// verified, the replay of [`Loaded::text`]) holds, if this client keeps
    /// them. A failure costs the next turn a whole verification; the caller
    /// says so and goes on.
    pub fn keep_checkpoint(&self, replay: &SignedReplay) -> io::Result<()> {
        match &self.checkpoint {
            Some(path) => {
                let written = super::checkpoint::keep_tip(
                    &super::checkpoint::tip_path(path),
                    replay,
                    &self.text,
                    self.bounds,
                    self.digest.borrow().as_ref(),
                );
                let tip = written.map(|written| {
                    self.digest.replace(written);
                });
                super::checkpoint::keep(path, None, replay).and(tip)
            }
            None => Ok(()),
        }
    }

    /// The whole record and its signed view, read from the text if only
    /// the header was (a turn whose events change the header, such as the
    /// one that ends the game, is written by printing the whole record).
    pub fn whole_record(&mut self) -> Result<(), RecordFault> {
        if !self.whole {
            let (signed, record) = one_game(read_signed_with_record(self.text.as_bytes())?)?;
            self.record = match record {
                Some(record) => record,
                None => parse_record::<RawGrammar>(&self.text).map_err(RecordFault::Syntax)?,
            };
            self.signed = signed;
            self.whole = true;
        }
        Ok(())
    }
}

/// Appends the events of `after` that follow `loaded.replay` (the events
/// a client's turn proved and played on a copy of its replay: `after` is
/// that copy) to the loaded game, with `prose` in the comment after the
/// first turn, and checks the new text before anyone writes it, as
/// [`append_checked`] does. When the text can be continued
/// ([`Loaded::bounds`]), the new events are printed after its verified part
/// and only they are read and walked again
/// ([`yam_referee::signed::write::append_verified_to_text`],
/// [`yam_referee::signed::tip::replay_after`]): a turn costs the same late
/// in a long game as early. Otherwise the whole record is printed and
/// checked as before. `loaded.text` (and its record, bounds and signed
/// view) becomes the new text; the replay of it is returned (the caller
/// keeps it).
pub fn append_turn(
    loaded: &mut Loaded,
    after: &SignedReplay,
    prose: Option<&str>,
    place: &Path,
) -> Result<SignedReplay, Defect> {
    let from = loaded.replay.events().len();
    // The new events are printed in the text's own buffer; if the new
    // text does not read back as the turn's replay, the text is put back
    // as it was and the whole way below is taken.
    if let Some(bounds) = loaded.bounds
        && let Some(appended) =
            append_verified_in_place(&mut loaded.text, bounds, after, from, prose)
    {
        match replay_continued(
            &loaded.text,
            &appended,
            &loaded.replay,
            Known::Log(after.events()),
        ) {
            After::Replayed { replay, bounds } => {
                loaded.bounds = bounds;
                // The movetext read before is no longer the text's.
                loaded.record.movetext.clear();
                loaded.signed = SignedText::default();
                loaded.whole = false;
                return Ok(*replay);
            }
            // A defect of Yam's own printing: the whole way below prints
            // the record canonically and says what is wrong.
            After::Whole => appended.undo(&mut loaded.text),
        }
    }
    loaded.whole_record().map_err(Defect::Written)?;
    let events = after.events().slice(from..after.events().len());
    let appended = append_checked(
        &mut loaded.record,
        &loaded.replay,
        Some(&loaded.signed),
        &events,
        prose,
        place,
    )?;
    loaded.bounds = Bounds::of(&appended.text, &appended.signed);
    // A text printed anew need not begin with the bytes the digest's kept
    // BLAKE3 state is of: the next tip hashes them to see.
    if let Some(digest) = loaded.digest.get_mut() {
        digest.forget_state();
    }
    loaded.text = appended.text;
    loaded.signed = appended.signed;
    Ok(appended.replay)
}

/// As [`load`], through what the client keeps of the game the file names
/// (`kept_at` gives where its verified checkpoint is, from the file's
/// `GameId`; `None`: nothing is kept). A tip of exactly the file's text
/// restores the replay without reading the record again (only its header
/// is read); otherwise the record is read whole and the events the
/// checkpoint vouches for are not checked for their signatures again
/// (everything else is). The checkpoint and the tip are then brought up to
/// date (a failure to write them is returned beside, for the caller to
/// mention). The answer is the one [`load`] gives; only its cost differs.
pub fn load_checkpointed(
    path: &Path,
    kept_at: impl FnOnce(&str) -> Option<std::path::PathBuf>,
) -> Result<(Loaded, io::Result<()>), crate::error::Error> {
    let text = read_game_file(path)?;
    let Some(checkpoint) = claimed_id(text.as_bytes()).and_then(|id| kept_at(&id)) else {
        return Ok((load_text(path, text, Known::Nothing)?, Ok(())));
    };
    let tip_at = super::checkpoint::tip_path(&checkpoint);
    let text = match super::checkpoint::read_tip(&tip_at, text.len()) {
        Some(tip) => match from_tip(
            path,
            &(std::sync::Arc::new(tip) as SharedBytes),
            text,
            &checkpoint,
        ) {
            Ok(loaded) => return Ok((loaded, Ok(()))),
            Err(text) => text,
        },
        None => text,
    };
    let kept = super::checkpoint::read(&checkpoint);
    let mut loaded = load_text(path, text, super::checkpoint::known(kept.as_ref()))?;
    let written = super::checkpoint::keep(&checkpoint, kept.as_ref(), &loaded.replay).and(
        super::checkpoint::keep_tip(&tip_at, &loaded.replay, &loaded.text, loaded.bounds, None)
            .map(|written| {
                loaded.digest.replace(written);
            }),
    );
    loaded.checkpoint = Some(checkpoint);
    Ok((loaded, written))
}

/// The game `text` (of the file `path`) restored from its tip, with only
/// its header read; the text back if the tip is not one of exactly it.
fn from_tip(
    path: &Path,
    tip: &SharedBytes,
    text: String,
    checkpoint: &Path,
) -> Result<Loaded, String> {
    let Some((replay, bounds, digest)) = Tip::restore(tip, &text, &RecordRulesets::beside(path))
    else {
        return Err(text);
    };
    // The header, read as a record with the text's own result token.
    let result = text[bounds.cut + 1..].trim();
    let mut header = String::with_capacity(bounds.movetext + result.len() + 3);
    header.push_str(&text[..bounds.movetext]);
    header.push_str("\n\n");
    header.push_str(result);
    header.push('\n');
    let Ok(record) = parse_record::<RawGrammar>(&header) else {
        return Err(text);
    };
    Ok(Loaded {
        record,
        replay,
        signed: SignedText::default(),
        checkpoint: Some(checkpoint.to_path_buf()),
        text,
        bounds: Some(bounds),
        whole: false,
        digest: RefCell::new(Some(digest)),
    })
}

fn read_game_file(path: &Path) -> Result<String, crate::error::Error> {
    use crate::error::Error;
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, "cannot read", e))?;
    match String::from_utf8(bytes) {
        Ok(text) => Ok(text),
        // Bytes that are not UTF-8 are invalid input, said where, as every
        // other command says it (the reader's fault, with its frame): read
        // as text, they were an I/O error (exit 2) without a place.
        Err(e) => {
            let bytes = e.into_bytes();
            let fault = read_signed_with_record(bytes.as_slice())
                .ok()
                .and_then(|games| games.into_iter().find_map(Result::err));
            Err(Error::invalid(match fault {
                Some(fault) => {
                    let frame = crate::diagnostics::frame_in(&bytes, fault.pos);
                    crate::diagnostics::render_syntax(path, &fault, Some(&frame))
                }
                None => format!("{}: not UTF-8 text", crate::diagnostics::visible_path(path)),
            }))
        }
    }
}

/// Reads the one signed game of the file `path`, verified; a failure is
/// reported as a diagnostic with its frame.
pub fn load(path: &Path) -> Result<Loaded, crate::error::Error> {
    load_knowing(path, Known::Nothing)
}

/// As [`load`], with what was verified before (a checkpoint): the answer
/// is the same, only its cost differs.
pub fn load_knowing(path: &Path, known: Known<'_>) -> Result<Loaded, crate::error::Error> {
    load_text(path, read_game_file(path)?, known)
}

/// As [`load_knowing`], for the file's `text`, already read.
fn load_text(path: &Path, text: String, known: Known<'_>) -> Result<Loaded, crate::error::Error> {
    use crate::diagnostics::{frame_in, render_failure, render_syntax};
    use crate::error::Error;
    // The signed view and the record in one reading.
    let mut games =
        read_signed_with_record(text.as_bytes()).map_err(|e| Error::io(path, "cannot read", e))?;
    let (signed, record) = match games.as_mut_slice() {
        [Ok((one, record))] => (one, record.take()),
        [Err(e)] => {
            let frame = frame_in(text.as_bytes(), e.pos);
            return Err(Error::invalid(render_syntax(path, e, Some(&frame))));
        }
        _ => {
            return Err(Error::usage(format!(
                "{}: a game file holds exactly one game, this one holds {}",
                path.display(),
                games.len()
            )));
        }
    };
    let id = signed.tag("GameId").map_or("", |t| t.value.as_str());
    let replay = match replay_text_knowing(&*signed, &RecordRulesets::beside(path), known) {
        Ok(r) => r,
        Err(Rejected::Unsigned) => {
            return Err(Error::invalid(format!(
                "{}: the record is unsigned; start a game with `yam hotseat new`",
                path.display()
            )));
        }
        Err(Rejected::Failed(f)) => {
            let frame = frame_in(text.as_bytes(), f.span.start);
            return Err(Error::invalid(render_failure(
                path,
                1,
                id,
                &f,
                Some(&frame),
            )));
        }
    };
    let record = match record {
        Some(record) => record,
        // Only the record's stricter reading failed: its own parse says why.
        None => parse_record::<RawGrammar>(&text).map_err(|e| {
            let frame = frame_in(text.as_bytes(), e.pos);
            Error::invalid(render_syntax(path, &e, Some(&frame)))
        })?,
    };
    let signed = std::mem::take(signed);
    let bounds = Bounds::of(&text, &signed);
    Ok(Loaded {
        record,
        replay,
        signed,
        checkpoint: None,
        text,
        bounds,
        whole: true,
        digest: RefCell::new(None),
    })
}

/// The game a record names in its `GameId` tag (verification then holds
/// the tag to the signed events), read by the notation's reader as it
/// reads any tag pair: white space around and inside the brackets, CRLF
/// and padded lines included, so a record that crossed a transport which
/// pads or trims lines (a 7bit attachment, a pasted record) names its game
/// all the same, where an exact match took it for a game the desk never
/// had. Only the record's leading tag lines are read: the movetext (80 kB
/// at ply 300) cannot hold the header's tag.
pub fn claimed_id(bytes: &[u8]) -> Option<String> {
    // A byte-order mark first (an editor's) is skipped, as the reader does.
    let bom = usize::from(bytes.starts_with(b"\xef\xbb\xbf")) * 3;
    let header = bom
        + bytes[bom..]
            .split_inclusive(|&b| b == b'\n')
            .take_while(|line| matches!(line.trim_ascii().first(), None | Some(b'[')))
            .map(<[u8]>::len)
            .sum::<usize>();
    let mut claim = GameIdClaim(None);
    // A header that fails after its GameId (no Game tag, no movetext in
    // the lines read) still names the game: the tag was read.
    let _ = Reader::new(&bytes[..header]).read_game(&mut claim);
    // Game ids are printable without escapes; anything else is no claim.
    claim.0.filter(|id| !id.contains(['"', '\\']))
}

/// The first `GameId` tag's value of a header the reader walks.
struct GameIdClaim(Option<String>);

impl Visitor for GameIdClaim {
    type Output = ();

    fn tag(&mut self, name: &str, value: RawTagValue<'_>, _span: Span) -> Result<(), TokenError> {
        if name == "GameId" && self.0.is_none() {
            self.0 = Some(value.decode().into_owned());
        }
        Ok(())
    }

    fn end_tags(&mut self, _game: GameKind) -> Result<Skip, Cow<'static, str>> {
        Ok(Skip(true))
    }

    fn end_game(&mut self) {}
}

/// The prose of each signed event's comment in a record's main line: the
/// text that stands in the same comment as the event's `[%event]`, by the
/// event's position. (Prose before a game's first event, or in comments
/// without an event, belongs to no event.)
pub fn prose_by_event(record: &Record<String>) -> std::collections::HashMap<u32, String> {
    use yam_notation::{CommentPart, Node};
    let mut out = std::collections::HashMap::new();
    let mut depth = 0usize;
    for node in &record.movetext {
        match node {
            Node::StartVariation => depth += 1,
            Node::EndVariation => depth = depth.saturating_sub(1),
            Node::Comment(comment) if depth == 0 => {
                let mut prose = Vec::new();
                let mut first_event = None;
                for part in &comment.parts {
                    match part {
                        CommentPart::Text(text) => prose.push(text.as_str()),
                        CommentPart::Command(cmd) if cmd.name == "event" => {
                            if first_event.is_none()
                                && let Ok(event) = decode_event(&cmd.args)
                            {
                                first_event = Some(event.event.seq);
                            }
                        }
                        CommentPart::Command(_) => {}
                    }
                }
                if let (Some(seq), false) = (first_event, prose.is_empty()) {
                    out.insert(seq, prose.join(" "));
                }
            }
            _ => {}
        }
    }
    out
}

/// Someone else's prose made harmless to print and to keep: control
/// characters other than line breaks and tabs, and the invisible
/// characters that reorder or hide text, each become U+FFFD.
pub fn clean_prose(text: &str) -> String {
    text.chars()
        .map(|c| {
            if (c.is_control() && c != '\n' && c != '\t') || yam_notation::is_hidden(c) {
                '\u{FFFD}'
            } else {
                c
            }
        })
        .collect()
}

/// `record` without its events from position `from` on: the events of a
/// branch that crossed the pen-holder's in the mail and is void
/// (`docs/fair-play.md`, 3.10), which are signed without the pen and so
/// carry no moves and no prose of their own (an event without moves is
/// written into the comment before it, `append_events`): their `[%event]`
/// commands in the main line are taken out (a comment they leave empty
/// goes too), and the result, which a
/// void resignation set, is unfinished again. Everything else the party
/// wrote stays. `None` when a main-line move follows the first event taken
/// out (then the record is not such a branch, and is left as it was).
pub fn without_events_from(record: &Record<String>, from: usize) -> Option<Record<String>> {
    use yam_notation::{CommentPart, GameResult, Node};
    let mut out = record.clone();
    let mut depth = 0usize;
    let mut seen = 0usize;
    let mut cutting = false;
    let mut movetext = Vec::with_capacity(out.movetext.len());
    for node in std::mem::take(&mut out.movetext) {
        match &node {
            Node::StartVariation => depth += 1,
            Node::EndVariation => depth = depth.saturating_sub(1),
            Node::Move(..) if depth == 0 && cutting => return None,
            _ => {}
        }
        let Node::Comment(mut comment) = node else {
            movetext.push(node);
            continue;
        };
        if depth == 0 {
            comment.parts.retain(|part| match part {
                CommentPart::Command(cmd) if cmd.name == "event" => {
                    seen += 1;
                    seen <= from
                }
                _ => true,
            });
            cutting |= seen > from;
            if comment.parts.is_empty() {
                continue;
            }
        }
        movetext.push(Node::Comment(comment));
    }
    out.movetext = movetext;
    out.set_result(GameResult::Unfinished);
    Some(out)
}

/// The record a party keeps when an incoming record continues it: its own
/// text, every comment and tag of it as it wrote them, with only the new
/// events appended, each with the prose the sender gave it (cleaned).
/// Nothing the sender changed in the events already kept (a comment, a
/// player's name, a date) enters the kept record. `kept` is the stored
/// text, `incoming` the sender's record and `replay` its replay, verified
/// (its events are the kept ones, then the new ones), of which the first
/// `known` events are the kept ones. The new events are written from that
/// replay: the kept game is not replayed once more.
///
/// `kept_record` is the kept text already read as a record, if it was.
pub fn continue_kept(
    kept: &[u8],
    kept_record: Option<Record<String>>,
    incoming: &Record<String>,
    replay: &SignedReplay,
    known: usize,
    place: &Path,
) -> Result<Continued, Defect> {
    let mut record = match kept_record {
        Some(record) => record,
        None => std::str::from_utf8(kept)
            .map_err(|_| Defect::Written(RecordFault::NotUtf8))
            .and_then(|text| {
                parse_record::<RawGrammar>(text)
                    .map_err(|e| Defect::Written(RecordFault::Syntax(e)))
            })?,
    };
    let received = replay.events();
    let prose = prose_by_event(incoming);
    let mut said = Vec::new();
    // Replayed only if the verified replay cannot number the events (no
    // kept event before them, which a kept game always has).
    let mut kept_replay: Option<SignedReplay> = None;
    for (seq, event) in received.iter().enumerate().skip(known) {
        let text = prose.get(&event.event.seq).map(|p| clean_prose(p));
        let written = kept_replay.is_none()
            && append_verified(&mut record, replay, seq..seq + 1, text.as_deref()).is_some();
        if !written {
            let before = match kept_replay.take() {
                Some(before) => before,
                None => verified_replay(kept, place, Known::Nothing).map_err(Defect::Written)?,
            };
            kept_replay = Some(
                append_events(
                    &mut record,
                    &before,
                    std::slice::from_ref(event),
                    text.as_deref(),
                )
                .map_err(Defect::Append)?,
            );
        }
        if let Some(text) = text {
            said.push((event.event.seq, text));
        }
    }
    Ok(Continued { record, said })
}

/// A kept record continued by an incoming one.
#[derive(Debug)]
pub struct Continued {
    /// The kept record with the new events appended.
    pub record: Record<String>,
    /// The prose the sender gave each new event (cleaned), by position.
    pub said: Vec<(u32, String)>,
}

/// A signed game the literal reading refused: its verdict as its events
/// have it ([`yam_referee::signed::follow_takebacks`]), when they verify and a move was taken
/// back. Only refused games with signed events are read a second time, so
/// this costs nothing on the way of a legal game.
pub fn follow_signed_takebacks(
    report: &mut yam_referee::check::GameReport,
    game: &[u8],
    path: &Path,
) {
    if !game.windows(7).any(|w| w.eq_ignore_ascii_case(b"[%event")) {
        return;
    }
    let Ok(Some(text)) = Reader::new(game).read_game(&mut Collector::new()) else {
        return;
    };
    if let yam_referee::signed::Verdict::Verified(verified) =
        yam_referee::signed::verify_text(&text, &RecordRulesets::beside(path))
    {
        yam_referee::signed::follow_takebacks(report, &verified, text.variations);
    }
}

#[cfg(test)]
mod tests {
    use super::claimed_id;

    #[test]
    fn a_game_id_is_read_from_its_tag_however_the_line_is_padded() {
        let claim = |text: &str| claimed_id(text.as_bytes());
        for text in [
            "[Game \"Khan\"]\n[GameId \"khan-1\"]\n\n*\n",
            "[Game \"Khan\"] \n[GameId \"khan-1\"] \n\n*\n",
            "[Game \"Khan\"]\r\n[GameId \"khan-1\"]\r\n\r\n*\r\n",
            "  [ GameId   \"khan-1\" ]\t\n",
            // A byte-order mark an editor put first: the reader skips it.
            "\u{feff}[Game \"Khan\"]\n[GameId \"khan-1\"]\n\n*\n",
        ] {
            assert_eq!(claim(text).as_deref(), Some("khan-1"), "{text:?}");
        }
        for text in [
            "[Game \"Khan\"]\n\n*\n",
            "[GameIdX \"khan-1\"]\n",
            "{[GameId \"khan-1\"]}\n",
            "[GameId khan-1]\n",
            "[GameId \"kh\\\"an\"]\n",
            "1. Ng3-f3 [GameId \"khan-1\"]\n",
            // A tag line inside a comment of the movetext is no header.
            "[Game \"Khan\"]\n\n1. Ng3-f3 {a note\n[GameId \"khan-1\"]} *\n",
        ] {
            assert_eq!(claim(text), None, "{text:?}");
        }
    }

    #[test]
    fn only_events_without_moves_at_the_end_are_cut() {
        use yam_notation::{GameResult, RawGrammar, parse_record};
        let text = include_str!("../../../examples/khan/signed/magician.yam");
        let record = parse_record::<RawGrammar>(text).unwrap();
        let events = super::stored_events(text.as_bytes()).unwrap().len();
        // Nothing after the last event: the same movetext, the result open.
        let kept = super::without_events_from(&record, events).unwrap();
        assert_eq!(kept.movetext, record.movetext);
        assert_eq!(kept.result, GameResult::Unfinished);
        // Moves stand after the third event: no such cut.
        assert!(super::without_events_from(&record, 2).is_none());
    }
}
