//! Writing signed events into a record, and the plain export without them.
//!
//! Records are handled with the notation's [`RawGrammar`]
//! (`Record<String>`), which keeps every game's tokens as text: the
//! harness writes canonical tokens, and anything a person added to the
//! record (comments, NAGs, variations) is kept as it was.
//!
//! [`RawGrammar`]: yam_notation::RawGrammar

use yam_notation::{Command, Comment, CommentPart, Dots, GameKind, Node, Record, Span, Tags};

use crate::fair_play::turn::{EventBody, Evidence, SignedEvent};

use super::replay::{ReplayError, SignedReplay};
use super::text::{EVENT_COMMAND, FAIR_PLAY_TAGS, chance_command, event_command};
use super::tip::Bounds;

/// Appends `events` to `record`: the moves of each turn in the main line,
/// then a comment with its `[%chance]` and `[%event]`; an event without
/// moves joins the comment before it when the movetext ends in one (its
/// `[%chance]` too, for a turn of the rules' own chance such as Genghis
/// Khan's Foe layout). `before` is the replay as it stood before the
/// events; it numbers the moves: a number is written when it differs from
/// the last one in the main line (a player's turn of several declarations
/// reads as one), and never for number 0, the moves before the first
/// numbered one (Castle Siege's secret setups). `prose`, if any, goes into
/// the comment after the first turn with moves, or, when no event has
/// moves (the opening), into the first comment the events start. Then the
/// fair-play tags and the result are set from the events.
pub fn append_events(
    record: &mut Record<String>,
    before: &SignedReplay,
    events: &[SignedEvent],
    prose: Option<&str>,
) -> Result<SignedReplay, ReplayError> {
    let mut replay = before.clone();
    let mut writer = EventWriter::new(record, events, prose);
    for signed in events {
        let number = replay.game().move_number();
        replay.push(signed)?;
        writer.write(record, signed, number);
    }
    finish(record, &replay);
    Ok(replay)
}

/// As [`append_events`], for events `after` has already verified: the
/// events of `after` at the positions `range` are written into `record`
/// (which holds the ones before), numbered from the game as it stood
/// before each (the snapshots `after` keeps), and the tags and result set
/// from `after`. Nothing is replayed: a client that verified a record
/// continuing its own (the desk) appends the new events to its own text
/// without replaying its whole game once more. `None`, with `record`
/// unchanged, when the range starts at 0 or is not within the events
/// (then [`append_events`] is the way).
pub fn append_verified(
    record: &mut Record<String>,
    after: &SignedReplay,
    range: std::ops::Range<usize>,
    prose: Option<&str>,
) -> Option<()> {
    let from = range.start;
    if from == 0 || range.end > after.events().len() || from > range.end {
        return None;
    }
    let events = after.events().slice(range);
    let mut writer = EventWriter::new(record, &events, prose);
    for (seq, signed) in (from..).zip(&events) {
        let number = after.move_number_before(seq)?;
        writer.write(record, signed, number);
    }
    finish(record, after);
    Some(())
}

/// Appends the events of `after` from position `from` on, which `after`
/// has already verified (a client's own turn, played on its replay), to a
/// record kept as its text, `text`, whose [`Bounds`] are `bounds`: they
/// are printed after `text[..bounds.cut]` (joining the comment that closes
/// there, as an event without moves does, or after it) instead of
/// printing the whole record again, so a turn late in a long game costs
/// its own events. Nothing is replayed: the moves are numbered from the
/// snapshots `after` keeps, as [`append_verified`] numbers them. The text
/// is the one [`append_events`] and the canonical printer give, byte for
/// byte, when `text` is itself canonical (the client checks it with
/// [`super::tip::replay_after`] before writing it). `None` when that cannot
/// be promised: the header changes (the result is set, a fair-play tag
/// comes or goes), the comment's last word would move, or the range is not
/// within the events; then append to the whole record.
pub fn append_verified_to_text(
    text: &str,
    bounds: Bounds,
    after: &SignedReplay,
    from: usize,
    prose: Option<&str>,
) -> Option<String> {
    let part = verified_part(text, bounds, after, from, prose)?;
    Some(joined(text, bounds, &part))
}

/// `text[..bounds.cut]` followed by `part`, in a new string.
fn joined(text: &str, bounds: Bounds, part: &str) -> String {
    let mut out = String::with_capacity(bounds.cut + part.len());
    out.push_str(&text[..bounds.cut]);
    out.push_str(part);
    out
}

/// What follows `text[..bounds.cut]` once the events of `after` from
/// `from` on are appended (see [`append_verified_to_text`]).
fn verified_part(
    text: &str,
    bounds: Bounds,
    after: &SignedReplay,
    from: usize,
    prose: Option<&str>,
) -> Option<String> {
    let range = from..after.events().len();
    splice(text, bounds, last_number(after, from), |record| {
        append_verified(record, after, range, prose).is_some()
    })
}

/// As [`append_verified_to_text`], in `text`'s own buffer: `text` becomes
/// the new record. `None` leaves `text` as it was.
///
/// Why in place: the new record is the old one up to `cut` and a few
/// hundred bytes after it, and a copy of a long game's text (180 kB for a
/// siege at 370 events) was that many fresh pages, each a page fault, at
/// every turn. What is returned is the only way to read the new text from
/// its new part alone ([`super::tip::replay_continued`], which need not
/// compare its first `cut` bytes with the prefix: they are the prefix's
/// own) and to take it back ([`AppendedInPlace::undo`]).
pub fn append_verified_in_place(
    text: &mut String,
    bounds: Bounds,
    after: &SignedReplay,
    from: usize,
    prose: Option<&str>,
) -> Option<AppendedInPlace> {
    let part = verified_part(text, bounds, after, from, prose)?;
    put_in_place(text, bounds, &part)
}

/// `text[..bounds.cut]` followed by `part`, in `text`'s own buffer.
fn put_in_place(text: &mut String, bounds: Bounds, part: &str) -> Option<AppendedInPlace> {
    let old_end = text.get(bounds.cut..)?.to_owned();
    text.truncate(bounds.cut);
    text.push_str(part);
    Some(AppendedInPlace { bounds, old_end })
}

/// A record appended to in its own buffer by [`append_verified_in_place`]:
/// the bounds of the text it continues, and what that text ended with
/// after them (its closing brace, white space and result: a few bytes).
#[derive(Debug)]
#[must_use = "the new text is read back with replay_continued, or taken back"]
pub struct AppendedInPlace {
    bounds: Bounds,
    old_end: String,
}

impl AppendedInPlace {
    /// The bounds of the text the record continues.
    pub fn bounds(&self) -> Bounds {
        self.bounds
    }

    /// Takes the append back: `text`, the record appended to, is again the
    /// record it was.
    pub fn undo(self, text: &mut String) {
        text.truncate(self.bounds.cut);
        text.push_str(&self.old_end);
    }
}

/// As [`append_verified_in_place`], each event with its own prose
/// (`prose_of` its position): the events of a turn mail, each with the
/// prose its sender gave it, appended to a party's own text in its own
/// buffer (a desk's stored text: 80 kB at ply 300 not copied). `None`
/// leaves `text` as it was.
pub fn append_each_verified_in_place(
    text: &mut String,
    bounds: Bounds,
    after: &SignedReplay,
    from: usize,
    prose_of: &dyn Fn(usize) -> Option<String>,
) -> Option<AppendedInPlace> {
    let part = each_verified_part(text, bounds, after, from, prose_of)?;
    put_in_place(text, bounds, &part)
}

/// What follows `text[..bounds.cut]` once the events of `after` from
/// `from` on are appended, each with its own prose.
fn each_verified_part(
    text: &str,
    bounds: Bounds,
    after: &SignedReplay,
    from: usize,
    prose_of: &dyn Fn(usize) -> Option<String>,
) -> Option<String> {
    let to = after.events().len();
    splice(text, bounds, last_number(after, from), |record| {
        (from..to).all(|seq| {
            append_verified(record, after, seq..seq + 1, prose_of(seq).as_deref()).is_some()
        })
    })
}

/// What follows `text[..bounds.cut]` in the record that `write` makes by
/// appending to a record of the text's header whose movetext is the
/// number `number` and the comment the text ends with (see
/// [`append_verified_to_text`]); `None` if `write` fails or the text
/// cannot be continued so.
fn splice(
    text: &str,
    bounds: Bounds,
    number: Option<(u32, Dots)>,
    write: impl FnOnce(&mut Record<String>) -> bool,
) -> Option<String> {
    if !bounds.hold(text) {
        return None;
    }
    let verified = &text[..bounds.cut];
    let (before_last, last_line) = match verified.rfind('\n') {
        Some(at) => (&verified[..at], &verified[at + 1..]),
        None => ("", verified),
    };
    let line_before = before_last
        .rsplit('\n')
        .next()
        .map_or(0, |l| l.chars().count());
    // The header alone, read as a record, for the tags the events set.
    let mut header = String::with_capacity(bounds.movetext + 4);
    header.push_str(&text[..bounds.movetext]);
    header.push_str("\n\n*\n");
    let mut record = yam_notation::parse_record::<yam_notation::RawGrammar>(&header).ok()?;
    let tags = record.tags.clone();
    // The main line's last move number and its last comment, as the whole
    // record has them: the writer numbers moves and joins events by them.
    if let Some((n, dots)) = number {
        record.movetext.push(Node::MoveNumber(n, dots));
    }
    let seeded = record.movetext.len();
    record.movetext.push(Node::Comment(Comment::default()));
    if !write(&mut record) || record.tags != tags {
        return None;
    }
    let Some(Node::Comment(joined)) = record.movetext.get(seeded) else {
        return None;
    };
    if !joined.is_empty() && !yam_notation::joins_in_place(line_before, last_line) {
        return None;
    }
    let mut out = String::with_capacity(1024);
    yam_notation::continue_after_comment::<yam_notation::RawGrammar>(
        joined,
        &record.movetext[seeded + 1..],
        &record.result,
        last_line.chars().count(),
        &mut out,
    );
    Some(out)
}

/// The last move number the writer printed in the main line of the record
/// of `replay`'s first `count` events: the number of its last turn with
/// moves, unless that is 0 (the moves before move 1 take none).
fn last_number(replay: &SignedReplay, count: usize) -> Option<(u32, Dots)> {
    let events = replay.events();
    (0..count.min(events.len()))
        .rev()
        .filter(|&seq| {
            events
                .get(seq)
                .is_some_and(|e| matches!(&e.event.body, EventBody::Turn(t) if !t.moves.is_empty()))
        })
        .find_map(|seq| replay.move_number_before(seq).filter(|n| n.0 > 0))
}

/// What writing a run of events remembers from one to the next.
struct EventWriter<'p> {
    prose: Option<&'p str>,
    last_number: Option<(u32, Dots)>,
    any_moves: bool,
}

impl<'p> EventWriter<'p> {
    fn new(record: &Record<String>, events: &[SignedEvent], prose: Option<&'p str>) -> Self {
        EventWriter {
            prose: prose.filter(|p| !p.trim().is_empty()),
            last_number: last_main_number(&record.movetext),
            any_moves: events
                .iter()
                .any(|e| matches!(&e.event.body, EventBody::Turn(t) if !t.moves.is_empty())),
        }
    }

    /// Writes `signed`, played when the game stood at move `number`.
    fn write(&mut self, record: &mut Record<String>, signed: &SignedEvent, number: (u32, Dots)) {
        let (number, dots) = number;
        let (moves, outcomes) = match &signed.event.body {
            EventBody::Turn(turn) => (
                turn.moves.iter().map(|m| m.as_str().to_owned()).collect(),
                turn.evidence.iter().find_map(|e| match e {
                    Evidence::Outcomes { roll, results } => Some(chance_command(*roll, results)),
                    _ => None,
                }),
            ),
            _ => (Vec::new(), None),
        };
        let mut comment = Comment::default();
        if moves.is_empty() {
            if let Some(Node::Comment(last)) = record.movetext.last_mut() {
                if let Some(chance) = outcomes {
                    last.push_command(chance);
                }
                last.push_command(event_command(signed));
                return;
            }
            if !self.any_moves
                && let Some(text) = self.prose.take()
            {
                // An opening's introduction stands before its events.
                comment.push_text(text);
            }
        } else {
            if number > 0 && self.last_number != Some((number, dots)) {
                record.movetext.push(Node::MoveNumber(number, dots));
                self.last_number = Some((number, dots));
            }
            for m in moves {
                record.movetext.push(Node::Move(m, Span::default()));
            }
            if let Some(text) = self.prose.take() {
                comment.push_text(text);
            }
        }
        if let Some(chance) = outcomes {
            comment.push_command(chance);
        }
        comment.push_command(event_command(signed));
        record.movetext.push(Node::Comment(comment));
    }
}

/// The fair-play tags and the result, from the replay after the events.
fn finish(record: &mut Record<String>, replay: &SignedReplay) {
    set_tags(&mut record.tags, replay);
    if let Some(end) = replay.ending() {
        record.set_result(end.result);
    }
}

/// The last move number of the main line, if any.
fn last_main_number(movetext: &[Node<String>]) -> Option<(u32, Dots)> {
    let mut depth = 0usize;
    let mut last = None;
    for node in movetext {
        match node {
            Node::StartVariation => depth += 1,
            Node::EndVariation => depth = depth.saturating_sub(1),
            Node::MoveNumber(n, d) if depth == 0 => last = Some((*n, *d)),
            _ => {}
        }
    }
    last
}

/// Sets the fair-play tags to what `replay`'s events say, removing any
/// they do not back.
pub fn set_tags(tags: &mut Tags, replay: &SignedReplay) {
    for name in FAIR_PLAY_TAGS {
        tags.remove(name);
    }
    for (name, value) in replay.expected_tags() {
        tags.set(name, value);
    }
}

/// The tag a plain export carries instead of the evidence.
pub const PLAIN_TAG: &str = "Evidence";

/// The reader's copy of a record: every `[%event]` removed (comments left
/// empty by that go too), the fair-play tags removed, and a tag
/// [`PLAIN_TAG`] saying so with `note` (what the original's verification
/// found). Prose, NAGs, variations and `[%chance]` values stay.
///
/// `taken_back` are the events accepted take-backs undid
/// ([`SignedReplay::taken_back`]). Their moves stay in a signed record's
/// main line (each with its event, which the hash chain needs), where a
/// plain reader would take them for moves of the game: in the copy they
/// become a comment, `{taken back by agreement: 2... Wa6-a4}`, at the
/// place they were played, so its main line is the game as it stands and
/// `yam check` finds it legal. Everything else in that stretch (numbers,
/// NAGs, prose, variations) goes into the same comment as text.
pub fn plain(
    record: &Record<String>,
    note: &str,
    taken_back: &[std::ops::RangeInclusive<u32>],
) -> Record<String> {
    // The header cloned, not the whole record: its movetext is made anew
    // (a clone of it replaced at once held a third copy of a game of a
    // million variations, 675 MB for `yam export --plain` of 12 MB).
    let mut tags = record.tags.clone();
    for name in FAIR_PLAY_TAGS {
        tags.remove(name);
    }
    tags.set(PLAIN_TAG, note);
    Record {
        tags,
        movetext: standing_movetext(record, taken_back),
        result: record.result,
    }
}

/// The game `record` as it stands: the record itself when nothing was taken
/// back, else a copy whose movetext is [`standing_movetext`]'s. What
/// `show`, `engine export` and the HTML pages show of a signed game.
pub fn standing<'a>(
    record: &'a Record<String>,
    taken_back: &[std::ops::RangeInclusive<u32>],
) -> std::borrow::Cow<'a, Record<String>> {
    if taken_back.is_empty() {
        return std::borrow::Cow::Borrowed(record);
    }
    let mut standing = record.clone();
    standing.movetext = standing_movetext(record, taken_back);
    std::borrow::Cow::Owned(standing)
}

/// The movetext of `record` as the game stands: every `[%event]` removed
/// (comments left empty by that go too), and the stretches `taken_back`
/// undid written as a comment where they were played, as [`plain`] writes
/// them. What a page or a board shows of a signed game.
pub fn standing_movetext(
    record: &Record<String>,
    taken_back: &[std::ops::RangeInclusive<u32>],
) -> Vec<Node<String>> {
    // The main line's moves belong to the event whose comment follows
    // them: `event` counts the main line's events met so far.
    let mut event = 0u32;
    let mut depth = 0u32;
    let mut undone = TakenBack::default();
    let mut movetext = Vec::with_capacity(record.movetext.len());
    for node in &record.movetext {
        let in_range = taken_back.iter().any(|r| r.contains(&event));
        if !in_range {
            undone.flush(&mut movetext);
        }
        match node {
            Node::StartVariation => depth += 1,
            Node::EndVariation => depth = depth.saturating_sub(1),
            _ => {}
        }
        let node = match node {
            Node::Comment(comment) => {
                let mut parts = Vec::with_capacity(comment.parts.len());
                for part in &comment.parts {
                    match part {
                        CommentPart::Command(Command { name, .. }) if name == EVENT_COMMAND => {
                            if depth == 0 {
                                event = event.saturating_add(1);
                            }
                        }
                        _ => parts.push(part.clone()),
                    }
                }
                if parts.is_empty() {
                    continue;
                }
                Node::Comment(Comment { parts })
            }
            other => other.clone(),
        };
        if in_range {
            undone.add(&node);
        } else {
            movetext.push(node);
        }
    }
    undone.flush(&mut movetext);
    if record.tags.game() == Some(GameKind::Khan) {
        drop_redundant_numbers(&mut movetext);
    }
    movetext
}

/// The text of a stretch of movetext a take-back undid, gathered for its
/// comment in a plain copy.
#[derive(Default)]
struct TakenBack {
    text: String,
    moves: bool,
}

impl TakenBack {
    fn add(&mut self, node: &Node<String>) {
        let word = match node {
            Node::MoveNumber(n, Dots::One) => format!("{n}."),
            Node::MoveNumber(n, Dots::Three) => format!("{n}..."),
            Node::Move(m, _) => {
                self.moves = true;
                m.clone()
            }
            Node::Nag(nag) => nag.to_string(),
            Node::Comment(comment) => comment
                .parts
                .iter()
                .map(|part| match part {
                    CommentPart::Text(text) => text.clone(),
                    // Without its brackets: text, not a command, in the
                    // comment it goes into.
                    CommentPart::Command(c) => format!("%{} {}", c.name, c.args.join(" ")),
                })
                .collect::<Vec<_>>()
                .join(" "),
            Node::StartVariation => "(".into(),
            Node::EndVariation => ")".into(),
        };
        if !self.text.is_empty() && !self.text.ends_with('(') && word != ")" {
            self.text.push(' ');
        }
        self.text.push_str(&word);
    }

    /// Writes the stretch gathered, if it held a move, as one comment.
    fn flush(&mut self, movetext: &mut Vec<Node<String>>) {
        let text = std::mem::take(&mut self.text);
        if std::mem::take(&mut self.moves) {
            movetext.push(Node::Comment(Comment {
                parts: vec![CommentPart::Text(format!(
                    "taken back by agreement: {text}"
                ))],
            }));
        } else if !text.is_empty() {
            movetext.push(Node::Comment(Comment {
                parts: vec![CommentPart::Text(text)],
            }));
        }
    }
}

/// Drops a Khan `N...` that follows its move directly: with the events'
/// comments gone it says nothing (`1. Ag4-g5 1... Ab5-c5` reads `1. Ag4-g5
/// Ab5-c5`), as PGN writes it; one after a comment or a variation stays.
/// (Castle Siege keeps its `N...`: a turn of many tokens needs its start
/// marked.) Only a number that is redundant goes: the `N...` right after
/// the one move of its own `N.`. Any other (`1. Ng3-f3 7... Ae7-f6`, or
/// `3... Ag4-f3` two moves after `3.`, numbers the referee refuses) is what
/// the record says, kept so that the copy is refused as the record is.
fn drop_redundant_numbers(movetext: &mut Vec<Node<String>>) {
    // The number of the last `N.` and how many moves followed it, while
    // nothing else (a comment, a variation) came between.
    let mut since: Option<(u32, usize)> = None;
    movetext.retain(|node| match node {
        Node::MoveNumber(n, Dots::Three) if since == Some((*n, 1)) => false,
        Node::MoveNumber(n, Dots::One) => {
            since = Some((*n, 0));
            true
        }
        Node::Move(..) => {
            since = since.map(|(n, moves)| (n, moves + 1));
            true
        }
        // A move's glyph or NAG belongs to it.
        Node::Nag(_) => true,
        _ => {
            since = None;
            true
        }
    });
}
