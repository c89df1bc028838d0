//! Two logs of one game, compared: where they fork, who signed which
//! branch, a proof of equivocation when one key signed two different
//! successors of the same event, and a verdict with its reasons.
//!
//! Each log is also verified on its own ([`verify_text`]), so a branch
//! that rests on a forged or broken event is named void with the first
//! failure that proves it.

use crate::fair_play::sign::PublicKey;
use crate::fair_play::turn::{
    EquivocationProof, EventBody, Evidence, NotEquivocation, Siblings, SignedEvent,
    classify_siblings,
};
use crate::replay::RulesCatalog;
use yam_notation::GameResult;

use super::collect::{Item, SignedText};
use super::text::decode_event;
use super::verify::{Failure, Verdict, verify_cut, verify_text};

/// One log as read.
#[derive(Debug, Clone)]
pub struct Log {
    /// Its events, up to the first that cannot be read.
    pub events: Vec<SignedEvent>,
    /// The whole log's verification (of its complete events, when it is
    /// cut short).
    pub verdict: Verdict,
    /// Where and why the log stops early, when it is cut short.
    pub cut: Option<String>,
    /// The players' names its header gives, by seat tag in lower case
    /// (`white`, `defender`, `player`): labels, not signed, shown beside
    /// the roles and keys the signed events prove.
    pub players: Vec<(String, String)>,
}

impl Log {
    /// Reads the events of a game's text and verifies it.
    pub fn read(text: &SignedText, catalog: &dyn RulesCatalog) -> Log {
        Log {
            events: events_of(text),
            verdict: verify_text(text, catalog),
            cut: None,
            players: players_of(text),
        }
    }

    /// Reads what a log cut short holds (the text read before the reader
    /// stopped, [`super::Collector::take_partial`]): its complete events,
    /// verified as far as they go. `cut` says where and why it stops.
    pub fn read_cut(text: &SignedText, catalog: &dyn RulesCatalog, cut: String) -> Log {
        Log {
            events: events_of(text),
            verdict: verify_cut(text, catalog),
            cut: Some(cut),
            players: players_of(text),
        }
    }

    /// The first failure of the log, if it has one.
    pub fn failure(&self) -> Option<&Failure> {
        match &self.verdict {
            Verdict::Failed(f) => Some(f),
            _ => None,
        }
    }

    fn verified(&self) -> bool {
        matches!(self.verdict, Verdict::Verified(_))
    }

    /// The result its record states, once it verifies.
    fn result(&self) -> Option<GameResult> {
        match &self.verdict {
            Verdict::Verified(v) => Some(v.result),
            _ => None,
        }
    }

    /// Whether its events allow `result` (once it verifies).
    fn allows(&self, result: GameResult) -> bool {
        matches!(&self.verdict, Verdict::Verified(v) if v.allowed_results.contains(&result))
    }
}

/// The seat tags' values of a text, unknown ones (`?`, empty) left out.
fn players_of(text: &SignedText) -> Vec<(String, String)> {
    ["White", "Black", "Defender", "Attacker", "Player"]
        .into_iter()
        .filter_map(|tag| {
            let value = text.tag(tag)?.value.trim();
            (!value.is_empty() && value != "?")
                .then(|| (tag.to_ascii_lowercase(), value.to_owned()))
        })
        .collect()
}

fn events_of(text: &SignedText) -> Vec<SignedEvent> {
    let mut events = Vec::new();
    for item in &text.items {
        if let Item::Event { args, .. } = item {
            match decode_event(args) {
                Ok(e) => events.push(e),
                Err(_) => break,
            }
        }
    }
    events
}

/// How the two logs relate.
#[derive(Debug, Clone)]
pub enum Relation {
    /// The same events.
    Identical {
        /// How many.
        events: usize,
    },
    /// One log is the other's beginning.
    Prefix {
        /// Whether log A is the shorter.
        a_is_shorter: bool,
        /// The events they share.
        common: usize,
    },
    /// They differ from event `seq` on.
    Fork(Box<Fork>),
}

/// Where two logs part.
#[derive(Debug, Clone)]
pub struct Fork {
    /// The position of the first event that differs.
    pub seq: usize,
    /// Log A's event there.
    pub a: SignedEvent,
    /// Log B's event there.
    pub b: SignedEvent,
    /// How the two events relate: a crossing, equivocation, or why they
    /// prove nothing against anyone.
    pub siblings: Result<Siblings, NotEquivocation>,
    /// Who validly signed events of branch A after the fork, with their
    /// positions.
    pub signed_a: Vec<(PublicKey, Vec<u32>)>,
    /// The same for branch B.
    pub signed_b: Vec<(PublicKey, Vec<u32>)>,
}

impl Fork {
    /// The proof of equivocation, if the fork is one.
    pub fn proof(&self) -> Option<&EquivocationProof> {
        match &self.siblings {
            Ok(Siblings::Equivocation(proof)) => Some(proof),
            _ => None,
        }
    }
}

/// The comparison of two logs, with a verdict.
#[derive(Debug, Clone)]
pub struct Dispute {
    /// Log A.
    pub a: Log,
    /// Log B.
    pub b: Log,
    /// How they relate.
    pub relation: Relation,
    /// The verdict, one line.
    pub verdict: String,
    /// Its reasons, in order.
    pub reasons: Vec<String>,
    /// Whether the logs conflict (a fork, or a log that fails).
    pub conflict: bool,
    names: Names,
}

impl Dispute {
    /// A party's name for reports: its role in the signed opening and its
    /// key fingerprint.
    pub fn name_of(&self, key: &PublicKey) -> String {
        self.names.name(key)
    }
}

/// Who validly signed which events of a branch, from `from` (the fork) on:
/// an event counts only when its signature verifies, it links into the
/// branch (its parent is the event before it; the walk stops at the first
/// that does not), and its author is a party of the game (the challenger
/// or an invited key of the branch's challenge). An equivocator could
/// otherwise make his own branch look acknowledged by appending the other
/// side's genuine answer, copied from the other branch, or an event signed
/// by a key of his own that no party holds.
fn signers(events: &[SignedEvent], from: usize) -> Vec<(PublicKey, Vec<u32>)> {
    let parties: Vec<PublicKey> = match events.first().map(|e| &e.event.body) {
        Some(EventBody::Challenge(c)) => std::iter::once(c.challenger.key)
            .chain(c.invited.iter().copied())
            .collect(),
        _ => Vec::new(),
    };
    let mut out: Vec<(PublicKey, Vec<u32>)> = Vec::new();
    let mut previous = from
        .checked_sub(1)
        .and_then(|i| events.get(i))
        .map(SignedEvent::hash);
    for e in events.iter().skip(from) {
        if previous.is_some_and(|p| e.event.parent != p) {
            break;
        }
        previous = Some(e.hash());
        if e.verify().is_err() || !parties.contains(&e.event.author) {
            continue;
        }
        match out.iter_mut().find(|(k, _)| *k == e.event.author) {
            Some((_, seqs)) => seqs.push(e.event.seq),
            None => out.push((e.event.author, vec![e.event.seq])),
        }
    }
    out
}

/// A short description of an event, for reports.
pub fn describe(event: &SignedEvent) -> String {
    describe_by(event, &event.event.author.fingerprint().to_string())
}

/// [`describe`], with the author named `by`.
fn describe_by(event: &SignedEvent, by: &str) -> String {
    let e = &event.event;
    let what = match &e.body {
        EventBody::Challenge(_) => "the challenge".to_owned(),
        EventBody::Acceptance(_) => "an acceptance".to_owned(),
        EventBody::Turn(t) => {
            let moves: Vec<&str> = t.moves.iter().map(|m| m.as_str()).collect();
            let mut parts = Vec::new();
            if !moves.is_empty() {
                parts.push(format!("moves {}", moves.join(" ")));
            }
            for ev in t.evidence.iter() {
                parts.push(match ev {
                    Evidence::RollRequest(r) => format!("roll request {}", r.request.index),
                    Evidence::RollResponse(r) => format!("roll response {}", r.response.index),
                    Evidence::Outcomes { roll, .. } => format!("outcomes of roll {roll}"),
                    Evidence::Skipped { roll, order } => {
                        format!("order {order} of roll {roll} skipped")
                    }
                    Evidence::SetupCommitment(_) => "a setup commitment".into(),
                    Evidence::SetupReveal(_) => "a setup reveal".into(),
                    Evidence::RoleReveal(_) => "the role reveal".into(),
                });
            }
            if parts.is_empty() {
                "an empty turn".to_owned()
            } else {
                format!("a turn: {}", parts.join(", "))
            }
        }
        EventBody::Resignation => "a resignation".into(),
        EventBody::DrawOffer => "a draw offer".into(),
        EventBody::DrawAnswer { accepted, .. } => {
            format!(
                "a draw answer ({})",
                if *accepted { "accepted" } else { "declined" }
            )
        }
        EventBody::TakebackOffer { back_to } => format!("a take-back offer to #{back_to}"),
        EventBody::TakebackAnswer { accepted, .. } => {
            format!(
                "a take-back answer ({})",
                if *accepted { "accepted" } else { "declined" }
            )
        }
        EventBody::ForfeitClaim { reason, .. } => format!("a forfeit claim ({reason})"),
    };
    format!("#{} {what}, by {by}, hash {}", e.seq, event.hash())
}

/// A party's name for the verdict: the player's name as the logs' headers
/// give it for its seat (a label, which both logs may not agree on: then
/// both), its role in the signed opening (the first role its party lists)
/// and its fingerprint; the fingerprint alone when the opening gives it no
/// role (drawn seats).
#[derive(Debug, Clone, Default)]
struct Names {
    roles: Vec<(PublicKey, String)>,
    players: Vec<(String, Vec<String>)>,
}

impl Names {
    fn of(events: &[SignedEvent], logs: [&Log; 2]) -> Names {
        let mut players: Vec<(String, Vec<String>)> = Vec::new();
        for (tag, value) in logs.iter().flat_map(|l| &l.players) {
            match players.iter_mut().find(|(t, _)| t == tag) {
                Some((_, values)) if !values.contains(value) => values.push(value.clone()),
                Some(_) => {}
                None => players.push((tag.clone(), vec![value.clone()])),
            }
        }
        let mut names = Vec::new();
        for e in events {
            let party = match &e.event.body {
                EventBody::Challenge(c) => &c.challenger,
                EventBody::Acceptance(a) => &a.party,
                _ => continue,
            };
            if let Some(role) = party.roles.first() {
                names.push((party.key, role.as_str().to_owned()));
            }
        }
        Names {
            roles: names,
            players,
        }
    }

    fn name(&self, key: &PublicKey) -> String {
        let Some((_, role)) = self.roles.iter().find(|(k, _)| k == key) else {
            return key.fingerprint().to_string();
        };
        match self
            .players
            .iter()
            .find(|(tag, _)| tag.eq_ignore_ascii_case(role))
            // A seat named after itself (`[White "White"]`) adds nothing.
            .filter(|(_, names)| !names.iter().all(|n| n.eq_ignore_ascii_case(role)))
        {
            Some((_, names)) => format!("{}, {role} ({})", names.join(" / "), key.fingerprint()),
            None => format!("{role} ({})", key.fingerprint()),
        }
    }
}

/// Compares two logs of one game.
pub fn dispute(a: &SignedText, b: &SignedText, catalog: &dyn RulesCatalog) -> Dispute {
    compare(Log::read(a, catalog), Log::read(b, catalog))
}

/// Compares two logs already read, each with the catalogue that finds its
/// own ruleset (two copies in two folders each name a ruleset file beside
/// themselves).
pub fn compare(a: Log, b: Log) -> Dispute {
    // Events are compared by content, not by signature: a hash names
    // content (3.8), and an author can sign its own event again with
    // another nonce (Ed25519 signatures are one per message only by
    // convention). Compared with their signatures, a log whose author
    // signed one early event again parted from the other there, on one and
    // the same event, and never reached the real fork: an equivocation
    // further on was hidden behind "the logs agree".
    let common = a
        .events
        .iter()
        .zip(&b.events)
        .take_while(|(x, y)| x.event == y.event)
        .count();
    let mut reasons = Vec::new();
    let names = Names::of(
        if a.events.len() >= b.events.len() {
            &a.events
        } else {
            &b.events
        },
        [&a, &b],
    );
    let describe_log = |name: &str, log: &Log| match &log.verdict {
        Verdict::Verified(v) if v.is_practice() => format!(
            "log {name} replays as unverified practice ({} events, {} moves)",
            v.summary.events, v.plies
        ),
        Verdict::Verified(v) if log.cut.is_some() => format!(
            "log {name}'s complete events verify ({} events, {} moves)",
            v.summary.events, v.plies
        ),
        Verdict::Verified(v) => format!(
            "log {name} verifies ({} events, {} moves)",
            v.summary.events, v.plies
        ),
        Verdict::Unsigned => format!("log {name} holds no signed events"),
        Verdict::Failed(f) => format!(
            "log {name} fails at {}:{}: {}",
            f.span.start.line, f.span.start.column, f.reason
        ),
    };
    reasons.push(describe_log("A", &a));
    reasons.push(describe_log("B", &b));
    let signed_twice: Vec<String> = a
        .events
        .iter()
        .zip(&b.events)
        .take(common)
        .enumerate()
        .filter(|(_, (x, y))| x.signature != y.signature)
        .map(|(seq, _)| format!("#{seq}"))
        .collect();
    if !signed_twice.is_empty() {
        reasons.push(format!(
            "event{} {} {} the same in both logs under two different signatures of {} author (each verifies on its own log): one event signed twice, not two events, so no conflict there",
            if signed_twice.len() == 1 { "" } else { "s" },
            signed_twice.join(", "),
            if signed_twice.len() == 1 { "is" } else { "are" },
            if signed_twice.len() == 1 { "its" } else { "their" },
        ));
    }
    for (name, log) in [("A", &a), ("B", &b)] {
        if let Some(cut) = &log.cut {
            reasons.push(format!(
                "log {name} does not read to its end ({cut}; cut short there, or damaged: a wrong encoding, a hand edit): its {} complete signed events before that point are compared",
                log.events.len()
            ));
        }
    }
    let (relation, verdict, conflict) = if common == a.events.len() && common == b.events.len() {
        let verdict = match (a.verified(), b.verified()) {
            (true, true) => {
                "no dispute: the logs hold the same signed events, and they verify".to_owned()
            }
            (true, false) => "the logs hold the same signed events, but log B does not verify (its text disagrees with them or breaks a rule): log A stands".to_owned(),
            (false, true) => "the logs hold the same signed events, but log A does not verify (its text disagrees with them or breaks a rule): log B stands".to_owned(),
            (false, false) => {
                "the logs hold the same signed events, and neither verifies".to_owned()
            }
        };
        // The same events, two finished results: the record allows both
        // only where a result is a party's to state (a standing forfeit
        // claim), and the director must see that the logs say different
        // things. A log still reading `*` states nothing against the other.
        let results = (a.result(), b.result());
        let differ = match results {
            (Some(x), Some(y)) if x != y => {
                reasons.push(format!(
                    "log A states the result {x}, log B {y}, on the same signed events"
                ));
                x.is_finished() && y.is_finished()
            }
            _ => false,
        };
        let verdict = if differ {
            format!(
                "the logs hold the same signed events, and both verify, but state different results ({} and {})",
                results.0.map(|r| r.to_string()).unwrap_or_default(),
                results.1.map(|r| r.to_string()).unwrap_or_default()
            )
        } else {
            verdict
        };
        (
            Relation::Identical { events: common },
            verdict,
            !(a.verified() && b.verified()) || differ,
        )
    } else if common == a.events.len() || common == b.events.len() {
        let a_is_shorter = common == a.events.len();
        let (short, long, long_log) = if a_is_shorter {
            ("A", "B", &b)
        } else {
            ("B", "A", &a)
        };
        reasons.push(format!(
            "log {long} continues log {short}: they share {common} events and {long} has {} more",
            long_log.events.len() - common
        ));
        let short_log = if a_is_shorter { &a } else { &b };
        // A shorter log that states a finished result the longer one's
        // events no longer allow: the game went on past the end it claims.
        // The longer log verifies, so its continuation is the record, and
        // the shorter log's result does not stand: a forfeit claim is
        // withdrawn when its claimant plays on (3.8), so a claimant who
        // played on and then hands over his log cut at the claim was told
        // "no conflict" by a comparison of events alone. A claim the
        // accused answered late still stands (only the claimant's own turn
        // withdraws it): the longer log's events allow its result, and a
        // longer log reading `*` states nothing against it.
        let superseded = match (short_log.result(), long_log.result()) {
            (Some(cut), Some(whole))
                if cut.is_finished() && cut != whole && !long_log.allows(cut) =>
            {
                Some((cut, whole))
            }
            _ => None,
        };
        if let (None, Some(cut), Some(whole)) = (superseded, short_log.result(), long_log.result())
            && cut.is_finished()
            && cut != whole
        {
            reasons.push(format!(
                "log {short} states the result {cut}; log {long}'s events allow it too (it states {whole}): a forfeit claim stands until its claimant plays on"
            ));
        }
        if let Some((cut, whole)) = superseded {
            reasons.push(format!(
                "log {short} states the result {cut}, but the game went on after it in log {long} ({} more events, its result {whole}), whose events no longer allow it: a forfeit claim is withdrawn when its claimant plays on, and no other finished result has events after it",
                long_log.events.len() - common
            ));
        }
        let verdict = match (long_log.verified(), short_log.verified()) {
            (true, true) if superseded.is_some() => format!(
                "log {long} stands: it is log {short} carried further and both verify, but log {short}'s result does not stand (the game went on after it)"
            ),
            (true, true) => {
                format!("no conflict: log {long} is log {short} carried further, and both verify")
            }
            (true, false) => format!(
                "no fork: log {long} is log {short}'s events carried further and verifies, but log {short} does not verify"
            ),
            (false, _) => format!("no fork, but the longer log {long} does not verify"),
        };
        (
            Relation::Prefix {
                a_is_shorter,
                common,
            },
            verdict,
            !(long_log.verified() && short_log.verified()) || superseded.is_some(),
        )
    } else {
        let fork = Fork {
            seq: common,
            a: a.events[common].clone(),
            b: b.events[common].clone(),
            siblings: classify_siblings(a.events[common].clone(), b.events[common].clone()),
            signed_a: signers(&a.events, common),
            signed_b: signers(&b.events, common),
        };
        let by = |e: &SignedEvent| describe_by(e, &names.name(&e.event.author));
        reasons.push(format!("log A has {}", by(&fork.a)));
        reasons.push(format!("log B has {}", by(&fork.b)));
        for (name, signed) in [("A", &fork.signed_a), ("B", &fork.signed_b)] {
            for (key, seqs) in signed {
                let seqs: Vec<String> = seqs.iter().map(|s| format!("#{s}")).collect();
                reasons.push(format!(
                    "{} signed branch {name} (events {})",
                    names.name(key),
                    seqs.join(", ")
                ));
            }
        }
        let verdict = fork_verdict(&fork, &a, &b, &names, &mut reasons);
        (Relation::Fork(Box::new(fork)), verdict, true)
    };
    Dispute {
        a,
        b,
        relation,
        verdict,
        reasons,
        conflict,
        names,
    }
}

fn fork_verdict(fork: &Fork, a: &Log, b: &Log, names: &Names, reasons: &mut Vec<String>) -> String {
    let fp = |key: &PublicKey| names.name(key);
    let in_branch =
        |signed: &[(PublicKey, Vec<u32>)], key: &PublicKey| signed.iter().any(|(k, _)| k == key);
    match &fork.siblings {
        Ok(Siblings::Equivocation(proof)) => {
            let culprit = *proof.culprit();
            reasons.push(format!(
                "{} signed two different successors of event #{}: this is a proof of equivocation, checkable from the two events alone",
                fp(&culprit),
                fork.seq.saturating_sub(1)
            ));
            // Which branch did the others acknowledge by signing after it?
            // Each once: a key in both branches is said once.
            let mut others: Vec<PublicKey> = Vec::new();
            for (k, _) in fork.signed_a.iter().chain(&fork.signed_b) {
                if *k != culprit && !others.contains(k) {
                    others.push(*k);
                }
            }
            let mut acknowledged = None;
            for other in &others {
                let (in_a, in_b) = (
                    in_branch(&fork.signed_a, other),
                    in_branch(&fork.signed_b, other),
                );
                match (in_a, in_b) {
                    (true, false) => acknowledged = Some("A"),
                    (false, true) => acknowledged = Some("B"),
                    _ => {}
                }
                if in_a && in_b {
                    reasons.push(format!(
                        "{} signed after the fork in both branches",
                        fp(other)
                    ));
                }
            }
            let tail = match acknowledged {
                Some(branch) => format!(
                    "; the other side acknowledged only branch {branch}, which is the continuation it accepted"
                ),
                None => String::new(),
            };
            format!("{} equivocated{tail}", fp(&culprit))
        }
        Ok(Siblings::Crossing { first, second }) => {
            reasons.push(format!(
                "the two events are by different authors on the same parent: their messages crossed, which is not equivocation; the documented order puts {}'s event first",
                fp(&first.event.author)
            ));
            let _ = second;
            match (a.verified(), b.verified()) {
                (true, false) => "crossing messages; branch B breaks the rules or the protocol, so branch A stands".to_owned(),
                (false, true) => "crossing messages; branch A breaks the rules or the protocol, so branch B stands".to_owned(),
                (true, true) => match crate::signed::adoption::crossing(
                    a.events.get(fork.seq..).unwrap_or_default(),
                    b.events.get(fork.seq..).unwrap_or_default(),
                ) {
                    Some(branch) => {
                        let after = |log: &Log| log.events.get(fork.seq..).unwrap_or_default().to_vec();
                        let (stands, void, standing, voided) = match branch {
                            crate::signed::adoption::Branch::First => ("A", "B", after(a), after(b)),
                            crate::signed::adoption::Branch::Second => ("B", "A", after(b), after(a)),
                        };
                        reasons.push(format!(
                            "branch {void} holds only events signed without the pen (a resignation, a forfeit claim) that crossed branch {stands}'s step of the player the game waited for (docs/fair-play.md, 3.10)"
                        ));
                        let taken_back = crate::signed::adoption::void_resigner(&voided)
                            .and_then(|who| {
                                crate::signed::adoption::resignation_taken_back(&who, &standing)
                                    .map(|e| (who, e.event.seq))
                            });
                        match taken_back {
                            Some((who, seq)) => {
                                reasons.push(format!(
                                    "{} resigned in branch {void} and, instead of signing the resignation again after the step that stands, signed event #{seq} of branch {stands}: a resignation is not taken back by crossing (3.10)",
                                    fp(&who)
                                ));
                                format!(
                                    "crossing messages, both valid: by the crossing rule branch {stands} stands up to event #{}, but {} resigned (branch {void}) and did not sign the resignation again: not signed again, the resignation is not taken back, and the events from #{seq} on are for a director",
                                    seq.saturating_sub(1),
                                    fp(&who)
                                )
                            }
                            None => format!(
                                "crossing messages, both valid: by the crossing rule branch {stands} stands and branch {void}'s events after the fork are void (a resignation in it is signed again after the step; a forfeit claim is judged anew)"
                            ),
                        }
                    }
                    None => "crossing messages, both valid: the players must agree which one to continue from (the documented order puts the first author's first)".to_owned(),
                },
                (false, false) => "crossing messages, and neither log verifies".to_owned(),
            }
        }
        Ok(Siblings::Same) => "the logs agree".to_owned(),
        Err(why) => {
            reasons.push(format!(
                "the two events prove nothing against anyone: {why}"
            ));
            let a_bad = fork.a.verify().is_err() || !a.verified();
            let b_bad = fork.b.verify().is_err() || !b.verified();
            match (a_bad, b_bad) {
                (false, true) => {
                    "branch B is void (forged or broken, see its failure); branch A stands".to_owned()
                }
                (true, false) => {
                    "branch A is void (forged or broken, see its failure); branch B stands".to_owned()
                }
                (true, true) => "neither branch verifies".to_owned(),
                (false, false) => "both branches verify but do not share a parent: the logs are of different games or histories".to_owned(),
            }
        }
    }
}
