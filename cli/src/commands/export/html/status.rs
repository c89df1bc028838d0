//! The verification status of each game, as the referee finds it at export
//! time: signed games are verified (`yam verify`'s verdict), unsigned ones
//! have their moves checked against the rules (`yam check`'s). Nothing a
//! record says about itself (an `Evidence` tag, a result) is taken on trust.

use std::path::Path;

use yam_notation::{ParseError, ReadError, Reader};
use yam_referee::check::{Checker, GameReport, Verdict as CheckVerdict};
use yam_referee::fair_play::turn::Mode;
use yam_referee::signed::{Verdict, verify_text};

use crate::game::record::read_signed;
use crate::game::rulesets::RecordRulesets;

/// What a verified game's signatures vouch for: how it was checked, and
/// the keys that signed it. The players' names are labels no signature
/// covers (docs/fair-play.md, 9.2), so a page that said "Verified" beside
/// them alone vouched for names a header swapped
/// (`a_verified_page_names_the_seats_by_their_keys_not_only_by_unsigned_names`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vouched {
    /// What was checked, and the mode's guarantee.
    pub how: String,
    /// Each seat's role and key fingerprint, first side first.
    pub seats: Vec<(String, String)>,
    /// The referee's key fingerprint, when a third party signed.
    pub referee: Option<String>,
}

/// What the referee found about one game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Signed, and every check passed (what the verifier says), and who
    /// signed.
    Verified(Vouched),
    /// A practice game: it replays, but proves nothing about fairness.
    Practice,
    /// Not signed; every move is legal by the rules.
    RulesChecked,
    /// Not signed; the moves are well formed but the rules could not be
    /// applied from the text alone (why).
    SyntaxChecked(String),
    /// The first failure: of verification, of the rules, or of syntax.
    Failed(String),
}

impl Status {
    /// A syntax error, as the status of a game that could not be read.
    pub fn syntax(e: &ParseError) -> Status {
        Status::syntax_at(e, e.pos.line)
    }

    /// As [`Status::syntax`], the error being on the file's line `line`.
    pub fn syntax_at(e: &ParseError, line: u32) -> Status {
        let found = if e.found.is_empty() {
            String::new()
        } else {
            format!(" at {:?}", e.found)
        };
        Status::Failed(format!("syntax error, line {line}: {}{found}", e.kind))
    }

    /// Whether the game failed a check.
    pub fn is_failure(&self) -> bool {
        matches!(self, Status::Failed(_))
    }

    /// The CSS class that colours it.
    pub fn class(&self) -> &'static str {
        match self {
            Status::Verified(_) => "verified",
            Status::Practice => "practice",
            Status::RulesChecked | Status::SyntaxChecked(_) => "unsigned",
            Status::Failed(_) => "failed",
        }
    }

    /// A few words, for the index.
    pub fn short(&self) -> String {
        match self {
            Status::Verified(_) => "verified".to_owned(),
            Status::Practice => "unverified practice game".to_owned(),
            Status::RulesChecked => "rules-checked, unsigned".to_owned(),
            Status::SyntaxChecked(_) => "syntax-checked, unsigned".to_owned(),
            Status::Failed(why) => format!("FAILED: {why}"),
        }
    }

    /// The full sentence, for the game's page.
    pub fn long(&self) -> String {
        match self {
            Status::Verified(v) => format!("Verified: {}.", v.how),
            Status::Practice => "Unverified practice game: every move and draw replays from the \
                                 open practice seed, but nothing about the fairness of the chance \
                                 is proven."
                .to_owned(),
            Status::RulesChecked => "Rules-checked, unsigned: every move is legal, but the record \
                                     carries no signatures, so who played it is not proven."
                .to_owned(),
            Status::SyntaxChecked(why) => format!(
                "Syntax-checked, unsigned: the record is well formed; its rules could not be \
                 checked ({why})."
            ),
            Status::Failed(why) => format!("Failed: {why}."),
        }
    }
}

/// The status of every game of a piece of an archive, in order. `bytes`
/// is its text, whose first line is line `first_line` of the file (the
/// lines named are the file's); `path` is where it was read (ruleset files
/// are beside it).
///
/// With each status, the events accepted take-backs undid when the game is
/// signed and verifies ([`yam_referee::signed::Verified::taken_back`]):
/// its page shows the game as it stands.
pub fn of_piece(path: &Path, bytes: &[u8], first_line: u32) -> Vec<(Status, TakenBack)> {
    let shift = |line: u32| line.saturating_add(first_line - 1);
    let signed = match read_signed(bytes) {
        Ok(s) => s,
        // A slice cannot fail to read; should it, every game says so.
        Err(e) => return vec![(Status::Failed(format!("read error: {e}")), Vec::new())],
    };
    let checked = check_all(path, bytes);
    let rulesets = RecordRulesets::beside(path);
    signed
        .iter()
        .enumerate()
        .map(|(i, text)| match text {
            Err(e) => (Status::syntax_at(e, shift(e.pos.line)), Vec::new()),
            Ok(text) => match verify_text(text, &rulesets) {
                Verdict::Verified(v) if v.is_practice() => (Status::Practice, v.taken_back),
                Verdict::Verified(v) => {
                    let mode = match v.summary.mode {
                        Mode::Peer => "peer",
                        Mode::Robot => "referee robot",
                        Mode::Director => "director",
                        Mode::Practice { .. } => "practice",
                    };
                    let status = Status::Verified(Vouched {
                        how: format!(
                            "{} signed events checked, {mode} mode: {}",
                            v.summary.events,
                            yam_referee::signed::text::mode_guarantee(&v.summary.mode)
                        ),
                        seats: v
                            .seats
                            .iter()
                            .map(|(role, fp)| ((*role).to_owned(), fp.to_string()))
                            .collect(),
                        referee: v.referee.as_ref().map(ToString::to_string),
                    });
                    (status, v.taken_back)
                }
                Verdict::Failed(f) => (
                    Status::Failed(format!(
                        "line {}: {}: {}",
                        shift(f.span.start.line),
                        f.found,
                        f.reason
                    )),
                    Vec::new(),
                ),
                Verdict::Unsigned => (
                    match checked.get(i) {
                        Some(Ok(report)) => rules_status(report, &shift),
                        Some(Err(e)) => Status::syntax_at(e, shift(e.pos.line)),
                        None => Status::Failed("the game could not be checked".to_owned()),
                    },
                    Vec::new(),
                ),
            },
        })
        .collect()
}

fn rules_status(report: &GameReport, shift: &dyn Fn(u32) -> u32) -> Status {
    match &report.verdict {
        CheckVerdict::Legal => Status::RulesChecked,
        CheckVerdict::RulesNotChecked(why) => Status::SyntaxChecked(why.clone()),
        CheckVerdict::Illegal(v) => {
            let what = if v.move_number.is_empty() {
                v.token.clone()
            } else {
                format!("{} {}", v.move_number, v.token)
            };
            Status::Failed(format!(
                "illegal, line {}: {what}: {}",
                shift(v.span.start.line),
                v.reason
            ))
        }
    }
}

/// The events accepted take-backs undid, of a signed game that verifies.
pub type TakenBack = Vec<std::ops::RangeInclusive<u32>>;

/// `yam check`'s verdict on every game of the archive, in order.
fn check_all(path: &Path, bytes: &[u8]) -> Vec<Result<GameReport, Box<ParseError>>> {
    let mut reader = Reader::new(bytes);
    let mut checker = Checker::with_rulesets(Box::new(RecordRulesets::beside(path)));
    let mut out = Vec::new();
    loop {
        match reader.read_game(&mut checker) {
            Ok(None) => return out,
            Ok(Some(report)) => out.push(Ok(report)),
            Err(ReadError::Syntax(e)) => out.push(Err(e)),
            Err(ReadError::Io(_)) => return out,
        }
    }
}
