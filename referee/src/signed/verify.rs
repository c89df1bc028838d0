//! Verifying a signed record as text: the events, the moves the reader sees,
//! the readable chance values and the header, against each other.
//!
//! The events are replayed by a [`SignedReplay`] (rules and evidence); on
//! top of that the text must agree with what is signed:
//!
//! - the move tokens of the main line since the previous event are exactly
//!   the moves the next event signs (canonical spelling), so the text and
//!   the signatures cannot diverge, and no move goes unsigned;
//! - each `[%chance]` shows exactly its event's signed outcomes;
//! - every fair-play header tag says what the signed events say, and none
//!   is missing ([`SignedReplay::expected_tags`]); the `GameId` tag names
//!   the signed game; a `Position` tag (an unsigned start) is refused;
//! - the result is the one the rules or the signed record make;
//! - each main-line move number is the number of the turn it stands
//!   before, exactly as `yam check` holds it (no number before Castle
//!   Siege's setups, which come before move 1).
//!
//! Each event is replayed before the text around it is compared with it, so
//! the first real fault is named: a signature that does not verify before
//! a readable copy that disagrees with it, an event of another game before
//! the moves it signs.
//!
//! Comments' prose, NAGs and variations are not looked at: they are
//! outside what is signed (`yam check` judges them).

use yam_notation::{Dots, GameResult, Span};

use crate::check::{GameReport, Verdict as CheckVerdict};
use crate::fair_play::outcome::Assurance;
use crate::fair_play::record::RecordSummary;
use crate::fair_play::sign::Fingerprint;
use crate::fair_play::turn::{EventBody, Evidence, SignedEvent};
use crate::replay::{GameEnd, RulesCatalog};

use super::checkpoint::Checkpoint;
use super::collect::{Item, SignedText};
use super::replay::{ReplayError, ReplayFault, SignedReplay};
use super::text::{FAIR_PLAY_TAGS, chance_args, decode_event};

/// The first thing wrong with a signed record, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// Where in the text.
    pub span: Span,
    /// The offending text (a token, `[%event`, a tag name, a result).
    pub found: String,
    /// Why it is refused.
    pub reason: String,
    /// More help: the position before a refused move, or the other side of
    /// a disagreement.
    pub help: Option<String>,
    /// The signed event concerned, if one is.
    pub event: Option<u32>,
}

impl Failure {
    fn at(span: Span, found: impl Into<String>, reason: impl Into<String>) -> Box<Failure> {
        Box::new(Failure {
            span,
            found: found.into(),
            reason: reason.into(),
            help: None,
            event: None,
        })
    }

    fn with_event(mut self: Box<Self>, seq: u32) -> Box<Self> {
        self.event = Some(seq);
        self
    }

    fn with_help(mut self: Box<Self>, help: impl Into<String>) -> Box<Self> {
        self.help = Some(help.into());
        self
    }
}

/// A signed record that verified.
#[derive(Debug, Clone)]
pub struct Verified {
    /// The fair-play summary (mode, assurance, counts, parties).
    pub summary: RecordSummary,
    /// Each seat's role and key fingerprint, first side first.
    pub seats: Vec<(&'static str, Fingerprint)>,
    /// The referee's (robot's, director's) fingerprint, if there is one.
    pub referee: Option<Fingerprint>,
    /// Moves in the game as it stands.
    pub plies: u32,
    /// The record's result.
    pub result: GameResult,
    /// How the game ended, if it did.
    pub ending: Option<GameEnd>,
    /// Forfeit claims, in words.
    pub claims: Vec<String>,
    /// Every result its events allow (the record's is one of them): a
    /// dispute asks whether a shorter log's result still stands.
    pub allowed_results: Vec<GameResult>,
    /// The events each accepted take-back undid
    /// ([`SignedReplay::taken_back`]): the main line holds moves the game
    /// no longer has, which a literal reading of it refuses.
    pub taken_back: Vec<std::ops::RangeInclusive<u32>>,
}

impl Verified {
    /// Whether this is a practice game: replayable, but nothing about its
    /// fairness is proven.
    pub fn is_practice(&self) -> bool {
        self.summary.assurance == Assurance::Unverified
    }
}

/// Why a record could not be replayed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejected {
    /// It holds no signed event at all.
    Unsigned,
    /// The first failure.
    Failed(Box<Failure>),
}

/// The verdict on one game.
#[derive(Debug, Clone)]
pub enum Verdict {
    /// Every check passed.
    Verified(Box<Verified>),
    /// No signed events.
    Unsigned,
    /// The first failure.
    Failed(Box<Failure>),
}

/// Verifies one game.
pub fn verify_text(text: &SignedText, catalog: &dyn RulesCatalog) -> Verdict {
    verdict(text, catalog, Whole::Yes)
}

/// Verifies what a log cut short holds ([`super::Collector::take_partial`]):
/// its header and its complete events, with the moves and values shown
/// beside them; the moves after the last complete event and the result,
/// which the cut took away, are not asked for.
pub fn verify_cut(text: &SignedText, catalog: &dyn RulesCatalog) -> Verdict {
    verdict(text, catalog, Whole::No)
}

/// Whether a record is whole, or cut short.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Whole {
    Yes,
    No,
}

fn verdict(text: &SignedText, catalog: &dyn RulesCatalog, whole: Whole) -> Verdict {
    let replayed = if text.is_signed() {
        replay_signed(text, catalog, Known::Nothing, whole).map_err(Rejected::Failed)
    } else {
        Err(Rejected::Unsigned)
    };
    match replayed {
        Err(Rejected::Unsigned) => Verdict::Unsigned,
        Err(Rejected::Failed(f)) => Verdict::Failed(f),
        Ok(replay) => match report(&replay, text.result) {
            Some(verified) => Verdict::Verified(Box::new(verified)),
            None => Verdict::Unsigned,
        },
    }
}

/// The rules' verdict on a signed game's main line, `report` (read
/// literally, as `yam check` reads it), made to agree with its events.
///
/// An accepted take-back leaves the moves it undid in the main line, each
/// with its signed event (the hash chain needs them), and the moves played
/// instead after them: read literally, the first of those is "numbered
/// wrongly". When the events verify, their replay has followed the
/// take-backs and held every move of the game as it stands to the rules,
/// so the main line is legal: the verdict becomes [`CheckVerdict::Legal`]
/// with the game's plies, or, when the game has variations (which branch
/// from positions only the literal reading places, and which no signature
/// covers), [`CheckVerdict::RulesNotChecked`] saying so. Any other verdict
/// stands.
pub fn follow_takebacks(report: &mut GameReport, verified: &Verified, variations: u32) {
    if verified.taken_back.is_empty() || !matches!(report.verdict, CheckVerdict::Illegal(_)) {
        return;
    }
    report.plies = verified.plies;
    report.verdict = if variations == 0 {
        CheckVerdict::Legal
    } else {
        CheckVerdict::RulesNotChecked(
            "a move was taken back by agreement, so the variations cannot be placed on the main line read as written; `yam verify` vouches for the main line".into(),
        )
    };
}

/// What a verified replay shows; `None` before the first event.
pub fn report(replay: &SignedReplay, result: GameResult) -> Option<Verified> {
    let claims = replay
        .claims()
        .iter()
        .map(|c| {
            format!(
                "event #{}: {} claims {} forfeited: {}",
                c.seq,
                replay.name_of(&c.by),
                replay.name_of(&c.against),
                c.reason
            )
        })
        .collect();
    Some(Verified {
        summary: replay.summary()?,
        seats: replay.seat_fingerprints(),
        referee: replay.referee().map(|p| p.key.fingerprint()),
        plies: replay.plies(),
        result,
        ending: replay.ending(),
        claims,
        allowed_results: replay.allowed_results().0,
        taken_back: replay.taken_back().to_vec(),
    })
}

/// Replays one game's text; the replay, ready to continue, or why not.
pub fn replay_text(
    text: &SignedText,
    catalog: &dyn RulesCatalog,
) -> Result<SignedReplay, Rejected> {
    replay_text_knowing(text, catalog, Known::Nothing)
}

/// Which events of a record were verified before, signatures included.
#[derive(Debug, Clone, Copy)]
pub enum Known<'a> {
    /// None: everything is checked (`yam verify`, a stranger's record).
    Nothing,
    /// These events, in order: an event equal to the known one at its
    /// place, signature included, is not checked for its signatures again.
    /// A turn mail continuing a stored game costs its new events'
    /// signatures, not the whole game's.
    Events(&'a [SignedEvent]),
    /// The same, as a replay holds them (a client's own new events, proven
    /// in this process).
    Log(&'a super::EventLog),
    /// Every event: only for a record Yam wrote itself after verifying it
    /// completely (a player's own store, where every write is verified
    /// first). Everything but the signatures is still checked.
    Everything,
    /// The events a client's checkpoint vouches for: their signatures are
    /// not checked, everything else is; if the checkpoint turns out not to
    /// match the record's events (or the replay fails), the record is
    /// verified again from nothing, so the answer is always the one
    /// [`Known::Nothing`] would give.
    Checkpoint(&'a Checkpoint),
}

/// As [`replay_text`], trusting the signatures of what is `known`; every
/// other check (hash links, chains, commitments, outcomes, the rules, the
/// header) runs on every event.
pub fn replay_text_knowing(
    text: &SignedText,
    catalog: &dyn RulesCatalog,
    known: Known<'_>,
) -> Result<SignedReplay, Rejected> {
    if !text.is_signed() {
        return Err(Rejected::Unsigned);
    }
    if let Known::Checkpoint(checkpoint) = known {
        match replay_signed(text, catalog, known, Whole::Yes) {
            Ok(replay) if checkpoint.matches_log(replay.events()) => return Ok(replay),
            // Not the events it was made of, or a failure that a skipped
            // signature might explain: the record is verified whole.
            _ => {}
        }
        return replay_signed(text, catalog, Known::Nothing, Whole::Yes).map_err(Rejected::Failed);
    }
    replay_signed(text, catalog, known, Whole::Yes).map_err(Rejected::Failed)
}

/// As [`replay_text_knowing`] for `text`, a record that continues one whose
/// signed view `prefix` this module already replayed to `before` (knowing
/// whatever it knew then): a record about to be written after new events.
///
/// When `text` is of the same game under the same ruleset and its items
/// begin with every item of `prefix` (an event last), the prefix is not
/// walked again: replaying it would end where `before` is, since a replay
/// is a function of the items. The walk continues from a copy of `before`
/// through the items after the prefix, and `text`'s header and result are
/// checked as a whole. Otherwise `text` is replayed from its start. Either
/// way the answer is the one [`replay_text_knowing`] gives `text` with
/// `known`; only the cost differs (a turn late in a long game costs its
/// new events, not the whole game again).
pub fn replay_text_continuing(
    text: &SignedText,
    catalog: &dyn RulesCatalog,
    known: Known<'_>,
    prefix: &SignedText,
    before: &SignedReplay,
) -> Result<SignedReplay, Rejected> {
    let ruleset = |t: &SignedText| t.tag("Ruleset").map(|tag| tag.value.clone());
    let continues = text.is_signed()
        && !matches!(known, Known::Checkpoint(_))
        && text.game.is_some()
        && text.game == prefix.game
        && ruleset(text).is_some()
        && ruleset(text) == ruleset(prefix)
        && text.tag("Position").is_none()
        && matches!(prefix.items.last(), Some(Item::Event { .. }))
        && prefix.event_count() == before.events().len()
        && text.items.len() >= prefix.items.len()
        && prefix
            .items
            .iter()
            .zip(&text.items)
            .all(|(a, b)| a.same_as(b));
    if !continues {
        return replay_text_knowing(text, catalog, known);
    }
    let continued = (|| {
        if let Some(first) = before.events().first() {
            check_game_id(text, first)?;
        }
        let mut walk = TextWalk::new(before.clone());
        walk.first_event = text.items.iter().find_map(|i| match i {
            Item::Event { span, .. } => Some(*span),
            _ => None,
        });
        for item in &text.items[prefix.items.len()..] {
            walk.item(item, text, known)?;
        }
        walk.finish(text, Whole::Yes)
    })();
    continued.map_err(Rejected::Failed)
}

/// The walk of `fragment`'s items continued from `before`, the replay of
/// everything the fragment leaves out: a record's header and only the
/// movetext after a verified prefix ([`super::tip::replay_after`] makes
/// the fragment and holds it to that prefix). The header and the result
/// are checked as for a whole record.
pub(super) fn walk_after(
    fragment: &SignedText,
    known: Known<'_>,
    before: &SignedReplay,
) -> Result<SignedReplay, Box<Failure>> {
    if let Some(first) = before.events().first() {
        check_game_id(fragment, first)?;
    }
    let mut walk = TextWalk::new(before.clone());
    for item in &fragment.items {
        walk.item(item, fragment, known)?;
    }
    walk.finish(fragment, Whole::Yes)
}

fn replay_signed(
    text: &SignedText,
    catalog: &dyn RulesCatalog,
    known: Known<'_>,
    whole: Whole,
) -> Result<SignedReplay, Box<Failure>> {
    let game_kind = text
        .game
        .ok_or_else(|| Failure::at(Span::default(), "", "the record names no game"))?;
    let ruleset_tag = text
        .tag("Ruleset")
        .ok_or_else(|| Failure::at(Span::default(), "", "the record has no Ruleset tag"))?;
    let ruleset = catalog
        .load_ruleset(game_kind, &ruleset_tag.value)
        .map_err(|e| Failure::at(ruleset_tag.span, "Ruleset", e.to_string()))?;
    if let Some(tag) = text.tag("Position") {
        return Err(Failure::at(
            tag.span,
            "Position",
            "a signed game starts from its ruleset's start position: the Position tag is not signed",
        ));
    }
    let game = catalog
        .start(&ruleset)
        .map_err(|e| Failure::at(ruleset_tag.span, "Ruleset", e.to_string()))?;
    let replay = SignedReplay::new(game, &ruleset.name, ruleset.hash());
    let mut walk = TextWalk::new(replay);
    for item in &text.items {
        walk.item(item, text, known)?;
    }
    walk.finish(text, whole)
}

/// The text's items walked in order against a replay: what
/// [`replay_signed`] does for a whole record, and
/// [`replay_text_continuing`] for what follows a prefix already walked.
struct TextWalk {
    replay: SignedReplay,
    /// Moves read since the last event: (canonical, as written, where).
    pending: Vec<(String, String, Span)>,
    first_event: Option<Span>,
    number: Option<(u32, Dots, Span)>,
}

impl TextWalk {
    fn new(replay: SignedReplay) -> Self {
        TextWalk {
            replay,
            pending: Vec::new(),
            first_event: None,
            number: None,
        }
    }

    fn item(
        &mut self,
        item: &Item,
        text: &SignedText,
        known: Known<'_>,
    ) -> Result<(), Box<Failure>> {
        let replay = &mut self.replay;
        match item {
            Item::Number {
                number: n,
                dots,
                span,
            } => self.number = Some((*n, *dots, *span)),
            Item::Move {
                text: written,
                span,
            } => {
                if let Some(written_number) = self.number.take() {
                    check_number(written_number, replay.game().move_number())?;
                }
                let canonical = replay
                    .game()
                    .canonical_token(written)
                    .map_err(|e| Failure::at(*span, written, e.to_string()))?;
                self.pending.push((canonical, written.clone(), *span));
            }
            Item::Stray { reason, span, .. } => {
                return Err(Failure::at(*span, "[%", *reason));
            }
            Item::Event { args, span, chance } => {
                let seq = replay.events().len();
                let seq32 = u32::try_from(seq).unwrap_or(u32::MAX);
                self.first_event.get_or_insert(*span);
                let signed = decode_event(args).map_err(|e| {
                    Failure::at(
                        *span,
                        "[%event",
                        format!("cannot read signed event #{seq}: {e}"),
                    )
                    .with_event(seq32)
                })?;
                if seq == 0 {
                    check_game_id(text, &signed)?;
                }
                let moves: Vec<String> = match &signed.event.body {
                    EventBody::Turn(t) => t.moves.iter().map(|m| m.as_str().to_owned()).collect(),
                    _ => Vec::new(),
                };
                // The event first, then the text beside it: a forged event
                // is named as such, not as a disagreement with its copy.
                replay.set_trusted(match known {
                    Known::Nothing => false,
                    Known::Events(events) => events.get(seq) == Some(&signed),
                    Known::Log(events) => events.get(seq) == Some(&signed),
                    Known::Everything => true,
                    Known::Checkpoint(checkpoint) => checkpoint.covers(seq),
                });
                let pushed = replay.push(&signed);
                replay.set_trusted(false);
                pushed.map_err(|e| locate(replay, e, *span, &self.pending, &moves))?;
                check_moves(&self.pending, &moves, *span, seq32)?;
                check_chance(&signed, chance.as_ref(), *span, seq32)?;
                self.pending.clear();
            }
        }
        Ok(())
    }

    fn finish(self, text: &SignedText, whole: Whole) -> Result<SignedReplay, Box<Failure>> {
        let replay = self.replay;
        if let (Some((_, written, span)), Whole::Yes) = (self.pending.first(), whole) {
            return Err(Failure::at(
                *span,
                written,
                "this move is not signed: no [%event] after it signs it (the record may be cut short)",
            ));
        }
        check_header(text, &replay, self.first_event.unwrap_or_default())?;
        let (allowed, why) = replay.allowed_results();
        if whole == Whole::Yes && !allowed.contains(&text.result) {
            let list: Vec<String> = allowed.iter().map(ToString::to_string).collect();
            return Err(Failure::at(
                text.result_span,
                text.result.to_string(),
                format!(
                    "the result is {}, but {why}, so it must be {}",
                    text.result,
                    list.join(" or ")
                ),
            ));
        }
        Ok(replay)
    }
}

fn check_game_id(text: &SignedText, signed: &SignedEvent) -> Result<(), Box<Failure>> {
    let signed_id = signed.event.game.as_str();
    match text.tag("GameId") {
        Some(tag) if tag.value == signed_id => Ok(()),
        Some(tag) => Err(Failure::at(
            tag.span,
            "GameId",
            format!(
                "the GameId tag says {:?}, but the signed events are of game {signed_id:?}",
                tag.value
            ),
        )),
        None => Err(Failure::at(
            Span::default(),
            "",
            "the record has no GameId tag",
        )),
    }
}

/// A move number must be the number of the turn it stands before (the one
/// the writer prints); the moves before move 1 (Castle Siege's setups) take
/// none.
fn check_number(
    (number, dots, span): (u32, Dots, Span),
    (expected, expected_dots): (u32, Dots),
) -> Result<(), Box<Failure>> {
    if (number, dots) == (expected, expected_dots) {
        return Ok(());
    }
    let show = |n: u32, d: Dots| match d {
        Dots::One => format!("{n}."),
        Dots::Three => format!("{n}..."),
    };
    let found = show(number, dots);
    let reason = if expected == 0 {
        format!(
            "the move number {found} is wrong here: these moves come before move 1 and take no number"
        )
    } else {
        format!(
            "the move number {found} is wrong here: this is move {}",
            show(expected, expected_dots)
        )
    };
    Err(Failure::at(span, found, reason))
}

/// The moves read since the last event must be exactly the ones this event
/// signs.
fn check_moves(
    pending: &[(String, String, Span)],
    signed: &[String],
    event_span: Span,
    seq: u32,
) -> Result<(), Box<Failure>> {
    let read: Vec<&str> = pending.iter().map(|(c, _, _)| c.as_str()).collect();
    if read == signed {
        return Ok(());
    }
    let describe = |moves: &[&str]| {
        if moves.is_empty() {
            "no move".to_owned()
        } else {
            moves.join(" ")
        }
    };
    let signed_refs: Vec<&str> = signed.iter().map(String::as_str).collect();
    let reason = format!(
        "signed event #{seq} signs {}, but the movetext has {} here",
        describe(&signed_refs),
        describe(&read)
    );
    // Point at the first move that differs, or at the event.
    let differing = pending
        .iter()
        .zip(signed)
        .find(|((c, _, _), s)| c != *s)
        .map(|((_, w, span), _)| (*span, w.clone()))
        .or_else(|| {
            pending
                .get(signed.len())
                .map(|(_, w, span)| (*span, w.clone()))
        });
    Err(match differing {
        Some((span, written)) => Failure::at(span, written, reason),
        None => Failure::at(event_span, "[%event", reason),
    }
    .with_event(seq))
}

/// The readable `[%chance]` must show exactly the signed outcomes.
fn check_chance(
    signed: &SignedEvent,
    chance: Option<&(Vec<String>, Span)>,
    event_span: Span,
    seq: u32,
) -> Result<(), Box<Failure>> {
    let outcomes = match &signed.event.body {
        EventBody::Turn(t) => t.evidence.iter().find_map(|e| match e {
            Evidence::Outcomes { roll, results } => Some(chance_args(*roll, results)),
            _ => None,
        }),
        _ => None,
    };
    match (outcomes, chance) {
        (None, None) => Ok(()),
        (Some(expected), Some((shown, _))) if expected == *shown => Ok(()),
        (Some(expected), Some((shown, span))) => Err(Failure::at(
            *span,
            "[%chance",
            format!(
                "the readable outcomes say {}, but signed event #{seq} says {}",
                shown.join(", "),
                expected.join(", ")
            ),
        )
        .with_event(seq)),
        (Some(expected), None) => Err(Failure::at(
            event_span,
            "[%event",
            format!(
                "signed event #{seq} carries outcomes ({}) but no [%chance] shows them before it",
                expected.join(", ")
            ),
        )
        .with_event(seq)),
        (None, Some((_, span))) => Err(Failure::at(
            *span,
            "[%chance",
            format!("signed event #{seq} carries no outcomes for this [%chance] to show"),
        )
        .with_event(seq)),
    }
}

/// Places a replay error: a refused move at its token, the rest at the
/// event.
fn locate(
    replay: &SignedReplay,
    error: ReplayError,
    event_span: Span,
    pending: &[(String, String, Span)],
    signed: &[String],
) -> Box<Failure> {
    let seq = error.seq;
    let failure = match &error.fault {
        ReplayFault::Rules(rules) => {
            // At the move as written when the text shows the signed move;
            // otherwise at the event that signs it.
            let at = pending
                .get(rules.index)
                .filter(|(canonical, _, _)| signed.get(rules.index) == Some(canonical));
            let failure = match at {
                Some((_, written, span)) => Failure::at(*span, written, rules.reason.clone()),
                None => match signed.get(rules.index) {
                    Some(m) => Failure::at(
                        event_span,
                        "[%event",
                        format!("signed move {m}: {}", rules.reason),
                    ),
                    None => Failure::at(event_span, "[%event", rules.reason.clone()),
                },
            };
            failure.with_help(format!("position before it: {}", rules.position))
        }
        ReplayFault::NotYourTurn { .. } => match pending.first() {
            Some((_, written, span)) => Failure::at(*span, written, error.to_string()),
            None => Failure::at(event_span, "[%event", error.to_string()),
        },
        _ => Failure::at(event_span, "[%event", error.to_string()),
    };
    let failure = failure.with_event(seq);
    if failure.help.is_none() && matches!(error.fault, ReplayFault::Record(_)) {
        let position = replay.game().position();
        return failure.with_help(format!("the position at this point: {position}"));
    }
    failure
}

/// Every fair-play tag must say what the signed events say.
fn check_header(
    text: &SignedText,
    replay: &SignedReplay,
    fallback: Span,
) -> Result<(), Box<Failure>> {
    let expected = replay.expected_tags();
    let header_span = text.tag("GameId").map_or(fallback, |t| t.span);
    for name in FAIR_PLAY_TAGS {
        let want = expected.iter().find(|(n, _)| *n == name).map(|(_, v)| v);
        match (want, text.tag(name)) {
            (Some(want), Some(tag)) if tag.value == *want => {}
            (Some(want), Some(tag)) => {
                return Err(Failure::at(
                    tag.span,
                    name,
                    format!(
                        "the {name} tag says {}, but the signed events say {want}",
                        tag.value
                    ),
                ));
            }
            (Some(want), None) => {
                return Err(Failure::at(
                    header_span,
                    "GameId",
                    format!("the header lacks the {name} tag; the signed events say {want}"),
                ));
            }
            (None, Some(tag)) => {
                return Err(Failure::at(
                    tag.span,
                    name,
                    format!("the {name} tag is not backed by any signed event"),
                ));
            }
            (None, None) => {}
        }
    }
    Ok(())
}
