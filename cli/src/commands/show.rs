//! `yam show`: the position after any move of a record, as a diagram (Khan,
//! Castle Siege) or a tableau (Genghis Khan).
//!
//! Showing is not verifying: Castle Siege is replayed from the die faces
//! its tokens show, and Genghis Khan from the deal its header records
//! (a game dealt from physical cards), else from the chance values its
//! `[%chance]` commands show (or from its open practice seed); `yam
//! verify` is what holds those to the signed evidence.

use std::path::PathBuf;

use yam_notation::castle_siege::Token as SiegeToken;
use yam_notation::genghis_khan::Move as CardMove;
use yam_notation::{Dots, GameKind, Node, Record};
use yam_referee::signed::shown::shown_cards;
use yam_referee::{castle_siege, genghis_khan, khan};

use crate::error::{Error, Result, Status};

/// Arguments of `yam show`.
#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// The record file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Which game of the file (1 is the first). Only the games before it
    /// are read, one at a time.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub game: usize,
    /// Show the position after this move: `23` after the first side's 23rd
    /// move, `23...` after the second side's. Default: the end.
    #[arg(long, value_name = "MOVE", conflicts_with = "ply")]
    pub r#move: Option<String>,
    /// Show the position after this many plies of the main line (0 is the start).
    #[arg(long, value_name = "N")]
    pub ply: Option<usize>,
    /// Draw the position as an SVG picture with a legend, instead of text.
    #[arg(long)]
    pub svg: bool,
    /// Write the picture here instead of standard output.
    #[arg(short, long, value_name = "OUT", requires = "svg")]
    pub out: Option<PathBuf>,
    /// Replace OUT if it exists.
    #[arg(long, requires = "out")]
    pub force: bool,
}

/// Run `yam show`.
pub fn run(args: &ShowArgs) -> Result<Status> {
    let game = crate::archive::nth::record_of(&args.file, args.game)?;
    // The position asked for is shown either way; the exit code is the
    // rules' verdict on the whole game, as `yam check` gives it. (A
    // position that cannot be reached is show's own error, already said
    // with its place: not said twice.)
    // A signed game's moves taken back by agreement stay in its main line;
    // the game shown is the game as it stands.
    let status = show(args, &game.standing())?;
    Ok(status.and(game.rules_verdict(&args.file, args.game)))
}

fn show(args: &ShowArgs, record: &Record<String>) -> Result<Status> {
    // Khan numbers single moves; the other games number whole turns.
    let per_turn = record.game() != Some(GameKind::Khan);
    let target = target_ply(args, record, per_turn)?;
    if args.svg {
        return show_svg(args, record, target);
    }
    match record.game() {
        Some(GameKind::Khan) => show_khan(&args.file, record, target),
        Some(GameKind::CastleSiege) => show_siege(record, target),
        Some(GameKind::GenghisKhan) => show_cards(record, target),
        // A game this version does not know: refused, as before, without
        // a word (`yam check` says why).
        None => Ok(Status::Invalid),
    }
}

/// The main-line ply to stop after, from `--move` or `--ply`. With
/// `per_turn`, a number stands for a whole turn (Castle Siege: a side's
/// turn of many tokens; Genghis Khan: a turn of the game), and the position
/// is the one after its last token.
fn target_ply(args: &ShowArgs, record: &Record<String>, per_turn: bool) -> Result<Option<usize>> {
    if let Some(ply) = args.ply {
        return Ok(Some(ply));
    }
    let Some(text) = &args.r#move else {
        return Ok(None);
    };
    let (number, dots) = match text.strip_suffix("...") {
        Some(n) => (n, Dots::Three),
        None => (text.trim_end_matches('.'), Dots::One),
    };
    let number: u32 = number.parse().map_err(|_| {
        Error::usage(format!(
            "--move takes a move number such as 23 or 23..., not {text:?}"
        ))
    })?;
    if per_turn {
        return turn_end(record, number, dots)
            .map(Some)
            .ok_or_else(|| Error::usage(format!("the game has no move {text}")));
    }
    // Find the main-line move that this number introduces.
    let mut depth = 0usize;
    let mut ply = 0usize;
    let mut current: Option<(u32, Dots)> = None;
    for node in &record.movetext {
        match node {
            Node::StartVariation => depth += 1,
            Node::EndVariation => depth = depth.saturating_sub(1),
            Node::MoveNumber(n, d) if depth == 0 => current = Some((*n, *d)),
            Node::Move(..) if depth == 0 => {
                ply += 1;
                if current == Some((number, dots)) {
                    return Ok(Some(ply));
                }
                // The second side's move follows the first side's without a number.
                current = match current {
                    Some((n, Dots::One)) => Some((n, Dots::Three)),
                    _ => None,
                };
            }
            _ => {}
        }
    }
    Err(Error::usage(format!("the game has no move {text}")))
}

/// The main-line ply after the last token numbered `number` `dots`.
fn turn_end(record: &Record<String>, number: u32, dots: Dots) -> Option<usize> {
    let mut depth = 0usize;
    let mut ply = 0usize;
    let mut current: Option<(u32, Dots)> = None;
    let mut end = None;
    for node in &record.movetext {
        match node {
            Node::StartVariation => depth += 1,
            Node::EndVariation => depth = depth.saturating_sub(1),
            Node::MoveNumber(n, d) if depth == 0 => current = Some((*n, *d)),
            Node::Move(..) if depth == 0 => {
                ply += 1;
                if current == Some((number, dots)) {
                    end = Some(ply);
                }
            }
            _ => {}
        }
    }
    end
}

/// `yam show --svg`: the picture of the position after `target` plies (the
/// end by default), drawn from the same replay as the HTML export's.
fn show_svg(args: &ShowArgs, record: &Record<String>, target: Option<usize>) -> Result<Status> {
    let timeline = crate::pictures::positions::timeline(&args.file, record, target);
    let reached = timeline.positions.len().saturating_sub(1);
    let Some(shown) = timeline.positions.last() else {
        return Err(Error::invalid(format!(
            "{}: {}",
            crate::diagnostics::visible_path(&args.file),
            timeline.error.as_deref().unwrap_or("nothing to show")
        )));
    };
    // A failure after the position asked for does not matter here.
    if let Some(error) = &timeline.error
        && target.is_none_or(|t| t > reached)
    {
        return Err(Error::invalid(format!(
            "{}: {error}",
            crate::diagnostics::visible_path(&args.file)
        )));
    }
    if target.is_some_and(|t| t > reached) {
        return Err(Error::usage(format!(
            "{}: the main line has only {}",
            crate::diagnostics::visible_path(&args.file),
            plies(reached)
        )));
    }
    let svg = crate::pictures::svg::draw(shown, &title(record, reached));
    match &args.out {
        Some(path) => crate::store::atomic::write(path, svg.as_bytes(), args.force)
            .map_err(|e| Error::io(path, "cannot write", e))?,
        None => {
            use std::io::Write;
            // Standard output is gone (a closed pipe): nobody to tell.
            if std::io::stdout().lock().write_all(svg.as_bytes()).is_err() {
                return Err(Error::Reported(Status::Unreadable));
            }
        }
    }
    Ok(Status::Valid)
}

/// Writes `text` to standard output. A reader gone (`yam show … | head`,
/// a closed pipe) is no error of the command's and no panic: nobody is
/// left to tell.
fn print_out(text: &str) -> Result<Status> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(Status::Valid),
        Err(_) => Err(Error::Reported(Status::Unreadable)),
    }
}

/// The title line: the game and how far it was played, counted as its
/// players count: a Khan game in moves and plies as chess players count
/// them (move 2 is White's ply 3 and Black's ply 4); Castle Siege in
/// rounds and each side's turn in it; Genghis Khan in turns. Every token
/// of the main line is a ply, as `--ply` counts them.
fn title(record: &Record<String>, played: usize) -> String {
    // Someone else's text, printed on a terminal: no escape sequence of a
    // record may retitle the window or clear the screen.
    let id = crate::mail::cards::clean_text(record.tags.get("GameId").unwrap_or("game"));
    let progress = match record.tags.game() {
        Some(GameKind::Khan) => khan_progress(played),
        Some(GameKind::CastleSiege) => siege_progress(record, played),
        _ => turn_progress(record, played),
    };
    format!("{id} {progress}")
}

/// `1 ply`, `2 plies`.
fn plies(n: usize) -> String {
    if n == 1 {
        "1 ply".to_owned()
    } else {
        format!("{n} plies")
    }
}

/// How far a Khan game is after `plies` plies: `at the start`, `after
/// White's move 2 (3 plies)`, `after move 2 (4 plies)`.
fn khan_progress(played: usize) -> String {
    let count = plies(played);
    match played {
        0 => "at the start".to_owned(),
        p if p % 2 == 1 => format!("after White's move {} ({count})", p.div_ceil(2)),
        p => format!("after move {} ({count})", p / 2),
    }
}

/// Where ply `played` of the main line falls among the record's numbered
/// turns (Castle Siege and Genghis Khan number every turn).
#[derive(Debug, PartialEq, Eq)]
struct Place {
    /// The number before its turn, and its dots.
    number: u32,
    dots: Dots,
    /// How many of that turn's plies have been played, this one included.
    within: usize,
    /// Whether it is the turn's last ply in the record.
    last: bool,
}

fn place(record: &Record<String>, played: usize) -> Option<Place> {
    let mut depth = 0usize;
    let mut ply = 0usize;
    let mut current: Option<(u32, Dots)> = None;
    let mut within = 0usize;
    let mut found: Option<Place> = None;
    for node in &record.movetext {
        match node {
            Node::StartVariation => depth += 1,
            Node::EndVariation => depth = depth.saturating_sub(1),
            Node::MoveNumber(n, d) if depth == 0 => {
                // A new turn after the ply found: it was its turn's last.
                if found.is_some() {
                    break;
                }
                current = Some((*n, *d));
                within = 0;
            }
            Node::Move(..) if depth == 0 => {
                // More of the same turn after the ply found.
                if let Some(place) = found.as_mut() {
                    place.last = false;
                    break;
                }
                ply += 1;
                within += 1;
                if ply == played {
                    let (number, dots) = current?;
                    // The record's last ply ends its turn too.
                    found = Some(Place {
                        number,
                        dots,
                        within,
                        last: true,
                    });
                }
            }
            _ => {}
        }
    }
    found
}

/// Castle Siege: `after round 3, the Defender's turn (41 plies)`, or
/// inside a turn `in round 3, 5 plies into the Defender's turn (36 plies)`.
fn siege_progress(record: &Record<String>, played: usize) -> String {
    let count = plies(played);
    if played == 0 {
        return "at the start".to_owned();
    }
    let Some(place) = place(record, played) else {
        return format!("during the setups ({count})");
    };
    let side = match place.dots {
        Dots::One => "Defender",
        Dots::Three => "Attacker",
    };
    if place.last {
        format!("after round {}, the {side}'s turn ({count})", place.number)
    } else {
        format!(
            "in round {}, {} into the {side}'s turn ({count})",
            place.number,
            plies(place.within)
        )
    }
}

/// Genghis Khan: `after turn 2 (21 plies)`, or inside a turn `in turn 3,
/// 4 plies into it (25 plies)`.
fn turn_progress(record: &Record<String>, played: usize) -> String {
    let count = plies(played);
    if played == 0 {
        return "at the start".to_owned();
    }
    match place(record, played) {
        Some(place) if place.last => format!("after turn {} ({count})", place.number),
        Some(place) => format!(
            "in turn {}, {} into it ({count})",
            place.number,
            plies(place.within)
        ),
        None => format!("after {count}"),
    }
}

fn show_siege(record: &Record<String>, target: Option<usize>) -> Result<Status> {
    let name = record.tags.get("Ruleset").unwrap_or("standard");
    let ruleset =
        castle_siege::Ruleset::builtin(name).map_err(|e| Error::invalid(e.to_string()))?;
    let mut tokens = Vec::new();
    for (token, span) in record.main_line() {
        if target.is_some_and(|t| tokens.len() >= t) {
            break;
        }
        let parsed = token
            .parse::<SiegeToken>()
            .map_err(|e| Error::invalid(format!("line {}: {token}: {e}", span.start.line)))?;
        tokens.push(parsed);
    }
    let revealed = tokens
        .iter()
        .filter(|t| matches!(t, SiegeToken::Setup(_)))
        .count();
    if revealed < 2 && !tokens.iter().any(|t| matches!(t, SiegeToken::Order { .. })) {
        let mut text = format!("{}\n", title(record, tokens.len()));
        let sealed = tokens
            .iter()
            .filter(|t| matches!(t, SiegeToken::Sealed(_)))
            .count();
        text.push_str(&format!(
            "The setups are secret until both are revealed (CS-07 to CS-10): {sealed} sealed, {revealed} revealed.\n"
        ));
        return print_out(&text);
    }
    let replayed = castle_siege::replay_record(ruleset.rules, &tokens).map_err(|e| {
        let mut message = e.to_string();
        if target.is_some() {
            message.push_str(
                "\n(a Castle Siege position is shown after whole declarations: try --move with a turn's number)",
            );
        }
        Error::invalid(message)
    })?;
    let text = format!(
        "{}\n{}",
        title(record, tokens.len()),
        castle_siege::diagram(&replayed.state)
    );
    print_out(&text)
}

fn show_cards(record: &Record<String>, target: Option<usize>) -> Result<Status> {
    let name = record.tags.get("Ruleset").unwrap_or("standard");
    let ruleset =
        genghis_khan::Ruleset::builtin(name).map_err(|e| Error::invalid(e.to_string()))?;
    // The recorded deal, else the chance values or seed: `yam check`'s choice.
    let (mut state, mut dealer) =
        shown_cards(record, &ruleset).map_err(|e| Error::invalid(e.to_string()))?;
    let mut played = 0usize;
    for (token, span) in record.main_line() {
        if target.is_some_and(|t| played >= t) {
            break;
        }
        let refused = |e: &dyn std::fmt::Display| {
            Error::invalid(format!("line {}: {token}: {e}", span.start.line))
        };
        let mv = token.parse::<CardMove>().map_err(|e| refused(&e))?;
        state = dealer.play(&state, &mv).map_err(|e| refused(&e))?.0;
        played += 1;
    }
    let text = format!(
        "{}\n{}",
        title(record, played),
        genghis_khan::tableau(&state)
    );
    print_out(&text)
}

fn show_khan(
    file: &std::path::Path,
    record: &Record<String>,
    target: Option<usize>,
) -> Result<Status> {
    let name = record.tags.get("Ruleset").unwrap_or("magician");
    // A built-in name, or a ruleset file beside the record.
    let ruleset = crate::game::rulesets::khan_ruleset(file, name)
        .map_err(|e| Error::invalid(e.to_string()))?;
    let mut line =
        khan::MainLine::of(record, &ruleset).map_err(|e| Error::invalid(e.to_string()))?;
    let mut played = 0usize;
    for ply in line.by_ref().take(target.unwrap_or(usize::MAX)) {
        if let Err(e) = ply {
            return Err(Error::invalid(format!(
                "{}:{}:{}: {e}",
                crate::diagnostics::visible_path(file),
                e.span.start.line,
                e.span.start.column
            )));
        }
        played += 1;
    }
    let pos = *line.position();
    let mut text = format!("{}\n{}", title(record, played), khan::diagram(&pos));
    if let Some(outcome) = pos.outcome() {
        text.push_str(&format!("{outcome}\n"));
    }
    print_out(&text)
}
