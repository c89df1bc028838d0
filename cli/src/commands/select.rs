//! `yam select`: the games of archives that match every criterion given,
//! copied exactly as written (signed evidence and all), in the spirit of
//! pgn-extract. Streams the archives one piece at a time: memory is one
//! piece, plus, for `--unique` and `--duplicates`, two 16-byte hashes (of
//! the id and of the main line) and where it was read, for each distinct
//! game seen: an id can be a tag value of megabytes.
//!
//! A game that does not parse cannot be judged: it is reported as `yam
//! check` reports it and left out, and the exit code is 1.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use yam_notation::record::canonical_date;
use yam_notation::{GameKind, GameResult, Reader, Record};
use yam_referee::check::{Checker, Verdict as CheckVerdict};
use yam_referee::signed::{Collector, Verdict, verify_text};

use crate::archive::games::{GameText, games_of};
use crate::archive::sink::Sink;
use crate::archive::{self, expand, stream_pieces_of};
use crate::diagnostics::{Frame, render_syntax};
use crate::error::{Error, Result, Status};
use crate::game::rulesets::RecordRulesets;

/// Arguments of `yam select`.
#[derive(Debug, clap::Args)]
pub struct SelectArgs {
    /// Record files (`-` for standard input), or directories searched for
    /// `.yam` files.
    #[arg(value_name = "FILE|DIR", required = true)]
    pub files: Vec<PathBuf>,
    /// Games of this type: khan, castle-siege or genghis-khan.
    #[arg(long, value_name = "TYPE")]
    pub game_type: Option<String>,
    /// Games played under this ruleset (its `Ruleset` tag, any case).
    #[arg(long, value_name = "NAME")]
    pub ruleset: Option<String>,
    /// Games where a player's name contains this (any case).
    #[arg(long, value_name = "NAME")]
    pub player: Option<String>,
    /// Games with this result (`1-0`, `0-1`, `1/2-1/2`, `*`, `90/150`, ...).
    #[arg(long, value_name = "RESULT")]
    pub result: Option<String>,
    /// Games dated on or after this day (YYYY.MM.DD; a date with an
    /// unknown part, `2026.??.??`, never matches a date range).
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Games dated on or before this day (YYYY.MM.DD).
    #[arg(long, value_name = "DATE")]
    pub until: Option<String>,
    /// Games with this tag and value, `NAME=VALUE` (value exact; repeat
    /// for several, all must match).
    #[arg(long, value_name = "NAME=VALUE")]
    pub tag: Vec<String>,
    /// Games of at least this many main-line plies.
    #[arg(long, value_name = "N")]
    pub min_plies: Option<usize>,
    /// Games of at most this many main-line plies.
    #[arg(long, value_name = "N")]
    pub max_plies: Option<usize>,
    /// Games whose verdict is this: `valid`, `invalid` or `unchecked` (as
    /// `yam check` finds), or `verified`, `practice`, `unsigned` or
    /// `failed` (as `yam verify` finds).
    #[arg(long, value_name = "STATUS", value_parser = ["valid", "invalid", "unchecked", "verified", "practice", "unsigned", "failed"])]
    pub status: Option<String>,
    /// Keep only the first of games that repeat one selected before: the
    /// same `GameId`, or the same main line of moves (a game the other
    /// criteria leave out is no first copy).
    #[arg(long, conflicts_with = "duplicates")]
    pub unique: bool,
    /// Keep only the games that repeat one selected before (and say which).
    #[arg(long)]
    pub duplicates: bool,
    /// Write here instead of standard output.
    #[arg(short, long, value_name = "OUT")]
    pub out: Option<PathBuf>,
    /// Replace OUT if it exists.
    #[arg(long, requires = "out")]
    pub force: bool,
    /// Print nothing but the summary.
    #[arg(short, long)]
    pub quiet: bool,
    /// How many games to judge at once (default: one per core).
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,
}

/// The pieces `select` reads at a time.
const PIECE: usize = 64 * 1024;

/// The criteria, parsed once.
#[derive(Debug)]
struct Criteria {
    game_type: Option<GameKind>,
    ruleset: Option<String>,
    player: Option<String>,
    result: Option<GameResult>,
    since: Option<String>,
    until: Option<String>,
    tags: Vec<(String, String)>,
    min_plies: Option<usize>,
    max_plies: Option<usize>,
    status: Option<String>,
}

impl Criteria {
    fn of(args: &SelectArgs) -> Result<Criteria> {
        // A date as the notation reads a `Date` tag (docs/notation.md,
        // section 2): a calendar date, any separator; no unknown part here.
        let date = |d: &Option<String>, flag: &str| -> Result<Option<String>> {
            match d {
                None => Ok(None),
                Some(d) => canonical_date(d)
                    .filter(|c| !c.contains('?'))
                    .map(Some)
                    .ok_or_else(|| {
                        Error::usage(format!(
                            "--{flag} {d:?}: expected a date YYYY.MM.DD that the calendar has"
                        ))
                    }),
            }
        };
        let tags = args
            .tag
            .iter()
            .map(|t| {
                t.split_once('=')
                    .map(|(n, v)| (n.trim().to_owned(), v.to_owned()))
                    .ok_or_else(|| Error::usage(format!("--tag {t:?}: expected NAME=VALUE")))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Criteria {
            game_type: match &args.game_type {
                None => None,
                Some(t) => Some(GameKind::from_name(t).ok_or_else(|| {
                    Error::usage(format!(
                        "--game-type {t:?}: expected khan, castle-siege or genghis-khan"
                    ))
                })?),
            },
            ruleset: args.ruleset.as_ref().map(|r| r.to_lowercase()),
            player: args.player.as_ref().map(|p| p.to_lowercase()),
            result: match &args.result {
                None => None,
                Some(r) => Some(r.parse::<GameResult>().map_err(|_| {
                    Error::usage(format!(
                        "--result {r:?}: expected a result such as 1-0, 0-1, 1/2-1/2, * or 90/150"
                    ))
                })?),
            },
            since: date(&args.since, "since")?,
            until: date(&args.until, "until")?,
            tags,
            min_plies: args.min_plies,
            max_plies: args.max_plies,
            status: args.status.clone(),
        })
    }

    /// Whether `record` matches everything but its status.
    fn matches(&self, record: &Record<String>) -> bool {
        let tag = |name: &str| record.tags.get(name).unwrap_or("");
        if self.game_type.is_some_and(|k| record.game() != Some(k)) {
            return false;
        }
        if let Some(r) = &self.ruleset
            && tag("Ruleset").to_lowercase() != *r
        {
            return false;
        }
        if let Some(p) = &self.player {
            let players = record.game().map_or(&[][..], |k| k.player_tags());
            if !players
                .iter()
                .any(|t| tag(t).to_lowercase().contains(p.as_str()))
            {
                return false;
            }
        }
        if self.result.is_some_and(|r| record.result != r) {
            return false;
        }
        if self.since.is_some() || self.until.is_some() {
            // The reader has already put the tag in canonical form.
            let date = tag("Date");
            if date.len() != 10 || date.contains('?') {
                return false;
            }
            if self.since.as_ref().is_some_and(|s| date < s.as_str())
                || self.until.as_ref().is_some_and(|u| date > u.as_str())
            {
                return false;
            }
        }
        if self.tags.iter().any(|(n, v)| tag(n) != v) {
            return false;
        }
        if self.min_plies.is_some() || self.max_plies.is_some() {
            let plies = record.main_line().count();
            if self.min_plies.is_some_and(|m| plies < m)
                || self.max_plies.is_some_and(|m| plies > m)
            {
                return false;
            }
        }
        true
    }
}

/// The status of one game's text, as `yam check` or `yam verify` gives it.
fn status_of(kind: &str, text: &[u8], file: &Path) -> &'static str {
    let mut reader = Reader::new(text);
    if matches!(kind, "valid" | "invalid" | "unchecked") {
        let mut checker = Checker::with_rulesets(Box::new(RecordRulesets::beside(file)));
        let Ok(Some(mut report)) = reader.read_game(&mut checker) else {
            return "invalid";
        };
        // A signed game with a take-back, as `yam check` reads it.
        crate::game::record::follow_signed_takebacks(&mut report, text, file);
        return match report.verdict {
            CheckVerdict::Legal => "valid",
            CheckVerdict::Illegal(_) => "invalid",
            CheckVerdict::RulesNotChecked(_) => "unchecked",
        };
    }
    let mut collector = Collector::new();
    match reader.read_game(&mut collector) {
        Ok(Some(signed)) => match verify_text(&signed, &RecordRulesets::beside(file)) {
            Verdict::Verified(v) if v.is_practice() => "practice",
            Verdict::Verified(_) => "verified",
            Verdict::Unsigned => "unsigned",
            Verdict::Failed(_) => "failed",
        },
        _ => "failed",
    }
}

/// One game, judged by a worker.
#[derive(Debug)]
struct Judged {
    text: Vec<u8>,
    /// Whether it matches the criteria (duplicates aside).
    selected: bool,
    /// Its `GameId`, and a hash of its main line (none if empty).
    id: String,
    moves: Option<[u8; 16]>,
    /// The ruleset file the game names, if it names one.
    ruleset_file: Option<String>,
    refused: Option<(Box<yam_notation::ParseError>, Box<Frame>)>,
}

fn judge(criteria: &Criteria, file: &Path, game: GameText) -> Judged {
    match game.record {
        Ok(record) => {
            let selected = criteria.matches(&record)
                && criteria
                    .status
                    .as_deref()
                    .is_none_or(|want| status_of(want, &game.text, file) == want);
            let mut hash = Sha256::new();
            let mut any = false;
            for (token, _) in record.main_line() {
                any = true;
                hash.update(token.as_bytes());
                hash.update(b"\n");
            }
            let moves = any.then(|| first_16(&hash.finalize()));
            let ruleset = record.tags.get("Ruleset").unwrap_or("");
            Judged {
                // The referee's own rule of what names a file (`.yml` and
                // any case too), so no game leaves its ruleset unsaid.
                ruleset_file: yam_referee::ruleset_name::RulesetName::parse(ruleset)
                    .is_ok_and(|name| name.is_file())
                    .then(|| ruleset.to_owned()),
                text: game.text,
                selected,
                id: record.tags.get("GameId").unwrap_or("").to_owned(),
                moves,
                refused: None,
            }
        }
        Err(refused) => Judged {
            text: game.text,
            selected: false,
            id: String::new(),
            moves: None,
            ruleset_file: None,
            refused: Some(refused),
        },
    }
}

/// The games seen so far, for `--unique` and `--duplicates`: where each
/// id and each main line was first read.
#[derive(Debug, Default)]
struct Seen {
    /// Each id by a hash of it, as each main line: an id is a tag value
    /// of up to megabytes, and kept whole every distinct one held the
    /// archive's ids (a megabyte a game of long ids).
    ids: HashMap<[u8; 16], String>,
    moves: HashMap<[u8; 16], String>,
}

/// The first 16 bytes of `text`'s SHA-256.
fn short_hash(text: &str) -> [u8; 16] {
    first_16(&Sha256::digest(text.as_bytes()))
}

/// The first 16 bytes of a SHA-256 digest: what names an id or a main line.
fn first_16(digest: &[u8]) -> [u8; 16] {
    let mut short = [0u8; 16];
    short.copy_from_slice(&digest[..16]);
    short
}

impl Seen {
    /// The game `game` repeats, if it repeats one; it is remembered.
    fn repeats(&mut self, game: &Judged, here: &str) -> Option<(String, &'static str)> {
        let id = (!game.id.is_empty()).then(|| short_hash(&game.id));
        let by_id = id.and_then(|id| self.ids.get(&id).cloned());
        let by_moves = game.moves.and_then(|m| self.moves.get(&m).cloned());
        if let Some(id) = id {
            self.ids.entry(id).or_insert_with(|| here.to_owned());
        }
        if let Some(m) = game.moves {
            self.moves.entry(m).or_insert_with(|| here.to_owned());
        }
        by_id
            .map(|at| (at, "the same GameId"))
            .or(by_moves.map(|at| (at, "the same moves")))
    }
}

/// Run `yam select`.
pub fn run(args: &SelectArgs) -> Result<Status> {
    let criteria = Criteria::of(args)?;
    let expansion =
        expand(&args.files).map_err(|(path, e)| Error::io(path, "cannot read directory", e))?;
    let mut status = Status::Valid;
    for empty in &expansion.empty {
        eprintln!("warning: {empty}");
        status = status.and(Status::NoRecords);
    }
    let target = args.out.as_deref().unwrap_or(Path::new("standard output"));
    let mut sink = Sink::open(args.out.as_deref(), args.force)
        .map_err(|e| Error::io(target, "cannot write", e))?;
    let mut seen = Seen::default();
    let (mut read, mut selected, mut refused, mut repeated) = (0u64, 0u64, 0u64, 0u64);
    let mut write_error = None;
    for file in &expansion.files {
        let (input, size) = match archive::open_input(file) {
            Ok(opened) => opened,
            Err(e) => {
                eprintln!(
                    "{}: cannot open: {e}",
                    crate::diagnostics::visible_path(file)
                );
                status = status.and(Status::Unreadable);
                continue;
            }
        };
        let mut number = 0u64;
        let jobs = args
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        let streamed = stream_pieces_of(
            PIECE,
            input,
            jobs,
            size,
            |piece| {
                games_of(piece)
                    .into_iter()
                    .map(|g| judge(&criteria, file, g))
                    .collect()
            },
            |game: &Judged, progress| {
                number += 1;
                read += 1;
                if let Some((e, frame)) = &game.refused {
                    refused += 1;
                    if !args.quiet {
                        let mut e = e.clone();
                        e.game = number;
                        let shown = render_syntax(file, &e, Some(frame));
                        progress.suspend(|| eprint!("{shown}"));
                    }
                    return;
                }
                let here = format!("{} game {number}", crate::diagnostics::visible_path(file));
                // Only a selected game is remembered as a first copy: a
                // doctored copy of a signed game read first (which
                // `--status verified` leaves out) made the honest copy
                // after it a repeat, and `--unique` then kept neither
                // (`a_doctored_copy_that_is_not_selected_does_not_hide_the_verified_one`).
                let repeats = if game.selected && (args.unique || args.duplicates) {
                    seen.repeats(game, &here)
                } else {
                    None
                };
                let keep = game.selected
                    && match (args.unique, args.duplicates) {
                        (true, _) => repeats.is_none(),
                        (_, true) => repeats.is_some(),
                        _ => true,
                    };
                if game.selected && args.unique && repeats.is_some() {
                    repeated += 1;
                }
                if args.duplicates
                    && game.selected
                    && !args.quiet
                    && let Some((first, why)) = &repeats
                {
                    progress.suspend(|| eprintln!("{here} repeats {first}: {why}"));
                }
                if !keep {
                    return;
                }
                // A ruleset file is read beside its archive: a copy of
                // the game elsewhere needs the file beside it too.
                if let Some(path) = &game.ruleset_file
                    && !args.quiet
                {
                    progress.suspend(|| {
                        eprintln!(
                            "warning: {here} names the ruleset file {path}, read beside its \
                             archive: copy it beside the selection too"
                        )
                    });
                }
                selected += 1;
                let mut text = Vec::with_capacity(game.text.len() + 2);
                if selected > 1 {
                    text.push(b'\n');
                }
                text.extend_from_slice(&game.text);
                text.push(b'\n');
                if write_error.is_none()
                    && let Err(e) = sink.write_all(&text)
                {
                    write_error = Some(e);
                }
            },
        );
        if let Err(e) = streamed {
            eprintln!(
                "{}: read error: {e}",
                crate::diagnostics::visible_path(file)
            );
            status = status.and(Status::Unreadable);
        }
    }
    if let Some(e) = write_error {
        return Err(Error::io(target, "cannot write", e));
    }
    sink.finish()
        .map_err(|e| Error::io(target, "cannot write", e))?;
    eprintln!(
        "{read} game{} read, {selected} selected{}, {refused} left out (they do not parse)",
        if read == 1 { "" } else { "s" },
        if args.unique {
            format!(", {repeated} dropped as repeats")
        } else {
            String::new()
        }
    );
    if refused > 0 {
        status = status.and(Status::Invalid);
    }
    Ok(status)
}
