//! The position after every ply of a record's main line, for pictures:
//! `yam show --svg` and the HTML export draw from here.
//!
//! Like `yam show`, this is showing, not verifying: Castle Siege replays
//! from the die faces its tokens show, Genghis Khan from its recorded deal,
//! its `[%chance]` values or its open practice seed. The HTML export states what the
//! referee's verification found beside the pictures.
//!
//! A replay that fails keeps every position before the failure, so a
//! broken game still shows as far as it can be followed.

use std::path::Path;

use yam_notation::castle_siege::{Mark, Order, Token as SiegeToken};
use yam_notation::genghis_khan::Move as CardMove;
use yam_notation::khan::KhanGrammar;
use yam_notation::{GameKind, MoveGrammar, Node, Record};
use yam_referee::signed::shown::shown_cards;
use yam_referee::{castle_siege, genghis_khan, khan};

/// One position of one game, ready to draw.
#[derive(Debug, Clone)]
pub enum Shown {
    /// A Khan position, and the squares of the move that led to it (from,
    /// to), outlined in the picture so a reader stepping through sees what
    /// moved.
    Khan(Box<khan::Position>, Option<(khan::Square, khan::Square)>),
    /// A Castle Siege position once both setups are revealed, and the
    /// orders of the turn that led to it (the turn so far, inside a turn;
    /// the whole turn just ended, after its `End`), drawn as arrows with
    /// their dice so a reader stepping through sees what happened.
    Siege(Box<castle_siege::State>, Option<Box<SiegeTurn>>),
    /// A Castle Siege game whose setups are still (partly) secret: the
    /// board is empty in the record's text (CS-07 to CS-10).
    SiegeSetup {
        /// Setups committed to but not yet revealed.
        sealed: usize,
        /// Setups revealed.
        revealed: usize,
    },
    /// A Genghis Khan tableau.
    Cards(Box<genghis_khan::State>),
}

/// A Castle Siege turn as far as a position shows it: whose, which
/// round, and what each of its orders so far did.
#[derive(Debug, Clone)]
pub struct SiegeTurn {
    /// The side whose turn it is (or was).
    pub side: castle_siege::Side,
    /// Its round.
    pub round: u32,
    /// Its orders so far, as written, with what each did: the referee's
    /// report when the orders so far resolve (always at `End`), none when
    /// a partial turn does not resolve on its own.
    pub orders: Vec<(Order, Mark, Option<castle_siege::Effect>)>,
    /// Whether the turn has ended (its `End` is among the orders).
    pub ended: bool,
}

impl SiegeTurn {
    /// The turn of `tokens`, played from `start`, with `resolution`'s
    /// report if they resolved.
    fn new(
        start: &castle_siege::State,
        tokens: &[SiegeToken],
        resolution: Option<&castle_siege::Resolution>,
    ) -> SiegeTurn {
        let orders = tokens
            .iter()
            .enumerate()
            .filter_map(|(i, t)| match t {
                SiegeToken::Order { order, mark } => Some((
                    *order,
                    *mark,
                    resolution
                        .and_then(|r| r.report.get(i))
                        .map(|o| o.effect.clone()),
                )),
                _ => None,
            })
            .collect::<Vec<_>>();
        SiegeTurn {
            side: start.turn(),
            round: start.round(),
            ended: orders.iter().any(|(o, _, _)| *o == Order::End),
            orders,
        }
    }
}

/// The positions of a main line: `positions[i]` is the one after `i`
/// plies (0 is the start). When the replay stopped early, `error` says
/// why and `positions` ends with the last position reached.
#[derive(Debug, Clone)]
pub struct Timeline {
    /// The positions reached, from the start.
    pub positions: Vec<Shown>,
    /// Why the replay stopped before the end of the main line.
    pub error: Option<String>,
}

impl Timeline {
    fn failed(positions: Vec<Shown>, error: String) -> Timeline {
        Timeline {
            positions,
            error: Some(error),
        }
    }
}

/// The positions of `record`'s main line, at most `limit` plies of it.
/// `file` is the record's path: Khan ruleset files are read beside it.
pub fn timeline(file: &Path, record: &Record<String>, limit: Option<usize>) -> Timeline {
    let tokens: Vec<(&String, usize)> = record
        .main_line()
        .map(|(t, span)| (t, span.start.line as usize))
        .take(limit.unwrap_or(usize::MAX))
        .collect();
    match record.game() {
        Some(GameKind::Khan) => khan_timeline(file, record, &tokens),
        Some(GameKind::CastleSiege) => siege_timeline(record, &tokens, false),
        Some(GameKind::GenghisKhan) => cards_timeline(record, &tokens),
        None => Timeline::failed(Vec::new(), "the record names no known game".to_owned()),
    }
}

fn refused(line: usize, token: &str, why: impl std::fmt::Display) -> String {
    format!("line {line}: {token}: {why}")
}

fn khan_timeline(file: &Path, record: &Record<String>, tokens: &[(&String, usize)]) -> Timeline {
    let name = record.tags.get("Ruleset").unwrap_or("magician");
    let ruleset = match crate::game::rulesets::khan_ruleset(file, name) {
        Ok(r) => r,
        Err(e) => return Timeline::failed(Vec::new(), e.to_string()),
    };
    let main_line = match khan::MainLine::of(record, &ruleset) {
        Ok(line) => line,
        Err(e) => return Timeline::failed(Vec::new(), e.to_string()),
    };
    let mut positions = vec![Shown::Khan(Box::new(*main_line.position()), None)];
    // `tokens` is the main line cut at the limit: as many plies, no more.
    for ply in main_line.take(tokens.len()) {
        match ply {
            Ok(ply) => positions.push(Shown::Khan(
                Box::new(ply.applied.position),
                Some((ply.mv.from, ply.mv.to)),
            )),
            Err(e) => {
                let line = e.span.start.line as usize;
                return Timeline::failed(positions, refused(line, &e.token, e.reason));
            }
        }
    }
    Timeline {
        positions,
        error: None,
    }
}

/// Castle Siege: a side's turn is many tokens resolved as one declaration.
/// Within a turn, the position after each token is the turn's orders so
/// far resolved from the turn's start (orders are carried out one at a
/// time, CS-P2); should a partial turn not resolve on its own, the turn's
/// starting position stands until its `End`, which must resolve.
/// With `strict`, a last token whose turn so far does not resolve ends
/// the timeline before it (a variation's move that is not drawn) rather
/// than showing the turn's start.
fn siege_timeline(record: &Record<String>, tokens: &[(&String, usize)], strict: bool) -> Timeline {
    let name = record.tags.get("Ruleset").unwrap_or("standard");
    let rules = match castle_siege::Ruleset::builtin(name) {
        Ok(r) => r.rules,
        Err(e) => return Timeline::failed(Vec::new(), e.to_string()),
    };
    let mut positions = vec![Shown::SiegeSetup {
        sealed: 0,
        revealed: 0,
    }];
    // The setups: sealed markers and revealed placements, up to the first order.
    let mut setups: Vec<SiegeToken> = Vec::new();
    for (i, (token, line)) in tokens.iter().enumerate() {
        let t = match token.parse::<SiegeToken>() {
            Ok(t) => t,
            Err(e) => return Timeline::failed(positions, refused(*line, token, e)),
        };
        if matches!(t, SiegeToken::Order { .. }) {
            return match castle_siege::replay_record(rules, &setups) {
                Ok(r) => siege_orders(positions, r.state, &tokens[i..], strict),
                Err(e) => Timeline::failed(positions, refused(*line, token, e)),
            };
        }
        setups.push(t);
        let count = |f: fn(&SiegeToken) -> bool| setups.iter().filter(|t| f(t)).count();
        let sealed = count(|t| matches!(t, SiegeToken::Sealed(_)));
        let revealed = count(|t| matches!(t, SiegeToken::Setup(_)));
        if revealed >= 2 {
            match castle_siege::replay_record(rules, &setups) {
                Ok(r) => positions.push(Shown::Siege(Box::new(r.state), None)),
                Err(e) => return Timeline::failed(positions, refused(*line, token, e)),
            }
        } else {
            positions.push(Shown::SiegeSetup { sealed, revealed });
        }
    }
    Timeline {
        positions,
        error: None,
    }
}

/// The orders of a Castle Siege main line, from the state the setups give.
/// The most tokens of one Castle Siege turn that are drawn.
const MAX_TURN_TOKENS: usize = 256;

fn siege_orders(
    mut positions: Vec<Shown>,
    mut start: castle_siege::State,
    tokens: &[(&String, usize)],
    strict: bool,
) -> Timeline {
    let mut turn: Vec<SiegeToken> = Vec::new();
    for (index, (token, line)) in tokens.iter().enumerate() {
        let t = match token.parse::<SiegeToken>() {
            Ok(t) => t,
            Err(e) => return Timeline::failed(positions, refused(*line, token, e)),
        };
        // Each position inside a turn is drawn with the turn so far, so a
        // turn of k tokens costs k²/2: one that never ends (no `End`, the
        // same order 4,000 times in 49 kB) took `yam export --html` 19 s
        // and 769 MB, `yam show --svg` 669 MB, and 200 kB was out of reach
        // of any machine. No legal turn comes near this many tokens (a
        // side has about thirty units, each moving and attacking at most
        // once, and a d6 of moves): what goes past it is not drawn.
        if turn.len() >= MAX_TURN_TOKENS {
            return Timeline::failed(
                positions,
                refused(
                    *line,
                    token,
                    format!(
                        "a turn longer than any legal turn ({MAX_TURN_TOKENS} orders without an End) is not drawn"
                    ),
                ),
            );
        }
        if start.outcome().is_some() {
            return Timeline::failed(positions, refused(*line, token, "the game is already over"));
        }
        let ends = matches!(
            t,
            SiegeToken::Order {
                order: Order::End,
                ..
            }
        );
        turn.push(t);
        if ends {
            let next = match castle_siege::replay_turns(&start, &turn) {
                Ok(r) => r.state,
                Err(e) => return Timeline::failed(positions, refused(*line, token, e)),
            };
            // The report of what each order did: the same resolution
            // replay_turns has just checked.
            let report = castle_siege::resolve_written(&start, &turn).ok();
            let shown = SiegeTurn::new(&start, &turn, report.as_ref());
            start = next;
            turn.clear();
            positions.push(Shown::Siege(Box::new(start.clone()), Some(Box::new(shown))));
        } else {
            let resolution = castle_siege::resolve_written(&start, &turn).ok();
            if strict && resolution.is_none() && index + 1 == tokens.len() {
                return Timeline::failed(
                    positions,
                    refused(*line, token, "the turn so far does not resolve"),
                );
            }
            let shown = SiegeTurn::new(&start, &turn, resolution.as_ref());
            let so_far = resolution.map_or_else(|| start.clone(), |r| r.state);
            positions.push(Shown::Siege(Box::new(so_far), Some(Box::new(shown))));
        }
    }
    Timeline {
        positions,
        error: None,
    }
}

fn cards_timeline(record: &Record<String>, tokens: &[(&String, usize)]) -> Timeline {
    let name = record.tags.get("Ruleset").unwrap_or("standard");
    let ruleset = match genghis_khan::Ruleset::builtin(name) {
        Ok(r) => r,
        Err(e) => return Timeline::failed(Vec::new(), e.to_string()),
    };
    // The recorded deal, else the chance values or seed (`yam show`'s choice).
    let (mut state, mut dealer) = match shown_cards(record, &ruleset) {
        Ok(start) => start,
        Err(e) => return Timeline::failed(Vec::new(), e.to_string()),
    };
    let mut positions = vec![Shown::Cards(Box::new(state.clone()))];
    for (token, line) in tokens {
        let step = token
            .parse::<CardMove>()
            .map_err(|e| e.to_string())
            .and_then(|mv| dealer.play(&state, &mv).map_err(|e| e.to_string()));
        match step {
            Ok((next, _)) => state = next,
            Err(e) => return Timeline::failed(positions, refused(*line, token, e)),
        }
        positions.push(Shown::Cards(Box::new(state.clone())));
    }
    Timeline {
        positions,
        error: None,
    }
}

/// One position of a [`Tree`], and the position it was reached from.
#[derive(Debug, Clone)]
pub struct Frame {
    /// The position.
    pub shown: Shown,
    /// The frame of the position one move earlier (none for the start).
    pub parent: Option<usize>,
}

/// Every position a record's moves reach, its variations' included, for
/// the HTML viewer: frame `i` for `i` up to the main line's length is the
/// position after `i` plies of the main line (as [`timeline`] gives
/// them); the variations' positions follow.
///
/// Variations are drawn for Khan, whose positions replay move by move
/// from the move a variation replaces, and for Castle Siege, whose
/// variation lines replay from the start with the faces their tokens show
/// (within [`SIEGE_VARIATION_DRAWING`]). Genghis Khan variations are
/// rules-checked by `yam check` but not drawn in this version (the open
/// seed's stream is not kept per line here): their variation moves have no
/// frame, and the page lists them without a diagram and says so.
#[derive(Debug, Clone)]
pub struct Tree {
    /// The positions, parents before children.
    pub frames: Vec<Frame>,
    /// How many of the frames are the main line's (its start included).
    pub main_frames: usize,
    /// For each move of the movetext in reading order, main line and
    /// variations alike, the frame after it; none where it cannot be drawn
    /// (after a move that does not replay, or in a variation that is not
    /// drawn).
    pub moves: Vec<Option<usize>>,
    /// Why the main line's replay stopped before its end.
    pub error: Option<String>,
    /// Whether variation moves past [`VARIATION_DRAWING`] were left
    /// without diagrams.
    pub variations_cut: bool,
}

/// A line's tokens from the start, each with its line in the file.
type TokenLine<'a> = Vec<(&'a String, usize)>;

/// Tokens the drawing of one game's Castle Siege variations may replay in
/// all (each variation move replays its line from the start): past it,
/// the remaining variation moves are listed without diagrams.
const SIEGE_VARIATION_DRAWING: usize = 200_000;

/// Variation positions one game draws at the most: past it, the remaining
/// variation moves are listed without diagrams, and the page says why. A
/// main line is bounded by the rules (Khan's hundred plies without a
/// capture, Castle Siege's round cap, Genghis Khan's deck), variations
/// only by the game's size: a game of a million sibling variations
/// (`(1. Ng3-f3)` a million times, 12 MB, under the reader's 16 MiB
/// limit) held a position and its drawing for each, 1.97 GB for
/// `yam export --html`. Annotated games hold hundreds; ten thousand is
/// room for any of them.
pub const VARIATION_DRAWING: usize = 10_000;

/// The [`Tree`] of `record`; `file` is its path, for Khan rulesets.
pub fn tree(file: &Path, record: &Record<String>) -> Tree {
    let timeline = timeline(file, record, None);
    let mut frames: Vec<Frame> = timeline
        .positions
        .into_iter()
        .enumerate()
        .map(|(i, shown)| Frame {
            shown,
            parent: i.checked_sub(1),
        })
        .collect();
    let main_frames = frames.len();
    let game = record.game();
    let mut moves = Vec::new();
    let mut ply = 0usize;
    // The frame of the current line's position, and of the position before
    // its last move (where a variation on that move starts).
    let mut current = Some(0).filter(|_| main_frames > 0);
    let mut before_last: Option<usize> = None;
    // Castle Siege: the current line's tokens from the start, replayed
    // whole for each variation move (a turn resolves as one declaration),
    // within a budget of replayed tokens.
    let mut line: TokenLine<'_> = Vec::new();
    let mut budget = SIEGE_VARIATION_DRAWING;
    // Each open variation: the frames to come back to, and how to give the
    // line back (its length without the move the variation replaces, and
    // that move): a variation only adds to that prefix, so cutting it back
    // and pushing the move again restores the line. (Cloned whole at every
    // `(`, the line made a record with a variation after every move cost
    // the square of its length: 80,000 moves, 18 s.)
    type Resume<'a> = (
        Option<usize>,
        Option<usize>,
        usize,
        Option<(&'a String, usize)>,
    );
    let mut suspended: Vec<Resume<'_>> = Vec::new();
    let mut variations_cut = false;
    for node in &record.movetext {
        match node {
            Node::Move(token, span) if suspended.is_empty() => {
                ply += 1;
                let frame = (ply < main_frames).then_some(ply);
                moves.push(frame);
                before_last = current;
                current = frame;
                line.push((token, span.start.line as usize));
            }
            Node::Move(token, span) => {
                line.push((token, span.start.line as usize));
                let drawn_so_far = frames.len() - main_frames;
                if current.is_some() && drawn_so_far >= VARIATION_DRAWING {
                    variations_cut = true;
                    current = None;
                }
                let shown = match (current, game) {
                    (Some(from), Some(GameKind::Khan)) => khan_step(&frames[from].shown, token),
                    (Some(_), Some(GameKind::CastleSiege)) if budget >= line.len() => {
                        budget -= line.len();
                        let mut drawn = siege_timeline(record, &line, true);
                        // Only a line that replays to its last token.
                        (drawn.error.is_none() && drawn.positions.len() == line.len() + 1)
                            .then(|| drawn.positions.pop())
                            .flatten()
                    }
                    _ => None,
                };
                let next = match (current, shown) {
                    (Some(from), Some(shown)) => {
                        frames.push(Frame {
                            shown,
                            parent: Some(from),
                        });
                        Some(frames.len() - 1)
                    }
                    _ => None,
                };
                moves.push(next);
                before_last = current;
                current = next;
            }
            Node::StartVariation => {
                // The variation replaces the line's last move.
                let replaced = line.pop();
                suspended.push((current, before_last, line.len(), replaced));
                current = before_last;
                before_last = None;
            }
            Node::EndVariation => {
                if let Some((c, b, len, replaced)) = suspended.pop() {
                    current = c;
                    before_last = b;
                    line.truncate(len);
                    line.extend(replaced);
                }
            }
            _ => {}
        }
    }
    Tree {
        frames,
        main_frames,
        moves,
        error: timeline.error,
        variations_cut,
    }
}

/// The Khan position after `token` is played in `shown`, if it is legal.
fn khan_step(shown: &Shown, token: &str) -> Option<Shown> {
    let Shown::Khan(position, _) = shown else {
        return None;
    };
    let parsed = KhanGrammar::parse_move(token).ok()?;
    let mut next = **position;
    let mv = khan::resolve_into(position, &parsed, &mut next).ok()?;
    Some(Shown::Khan(Box::new(next), Some((mv.from, mv.to))))
}

/// What a replay's position draws as: a turn mail's board. `None` when
/// there is nothing to draw yet (a Genghis Khan game before its layout).
pub fn shown_of(snapshot: yam_referee::replay::Snapshot<'_>) -> Option<Shown> {
    use yam_referee::replay::Snapshot;
    Some(match snapshot {
        Snapshot::Khan(position, last) => Shown::Khan(Box::new(*position), last),
        Snapshot::SiegeSetup { sealed, revealed } => Shown::SiegeSetup { sealed, revealed },
        // A replay's snapshot keeps no turn's orders: the mail's text
        // says what was played, the board shows where things stand.
        Snapshot::Siege(state) => Shown::Siege(Box::new(state.clone()), None),
        Snapshot::Cards(state) => Shown::Cards(Box::new(state.clone())),
        Snapshot::None => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use yam_notation::{RawGrammar, parse_record};

    /// Adversary: whoever hands a site or `yam show --svg` a Castle Siege
    /// record. Attack: one turn that never ends, `Move@2` and then the
    /// same order again and again (3,000 times, 36 kB of movetext). Each
    /// position inside a turn is drawn with "the turn's orders so far", and
    /// `siege_orders` keeps a fresh copy of them for every token (and
    /// resolves the whole turn so far again for each), so the timeline
    /// holds 1 + 2 + ... + k orders: 4,000 tokens took `yam export --html`
    /// 19 s and 769 MB, `yam show --svg` 2.3 s and 669 MB (release; 1,000
    /// tokens 1.2 s and 59 MB: 4x a doubling), and a 200 kB record is out
    /// of reach of any machine. What a timeline holds should grow with the
    /// record, not with the square of one turn's length.
    #[test]
    fn a_turn_that_never_ends_holds_its_orders_once_not_once_a_token() {
        let k = 3_000;
        let text = format!(
            "[Game \"Castle Siege\"]\n[Variant \"Standard\"]\n[GameId \"long-turn\"]\n\
             [Event \"e\"]\n[Date \"2026.01.01\"]\n[Defender \"D\"]\n[Attacker \"A\"]\n\
             [Result \"*\"]\n[NotationVersion \"1\"]\n[Ruleset \"standard\"]\n\n\
             Defender:sealed Attacker:sealed Defender:KAOO/CKOO/CKKC/ACAA\n\
             Attacker:CTCTACAK/SK/KK/SK/RR/KT/RT/KKSARASC 1. Move@2 {}*\n",
            "Cd3-c4/skip ".repeat(k)
        );
        let record = parse_record::<RawGrammar>(&text).expect("the record reads");
        let timeline = timeline(Path::new("long-turn.yam"), &record, None);
        // No legal turn is that long: it is drawn up to a bound, and the
        // timeline says why it stops there.
        assert!(
            timeline
                .error
                .as_deref()
                .is_some_and(|e| e.contains("longer than any legal turn")),
            "{:?}",
            timeline.error
        );
        assert!(timeline.positions.len() <= MAX_TURN_TOKENS + 8);
        let held: usize = timeline
            .positions
            .iter()
            .map(|shown| match shown {
                Shown::Siege(_, Some(turn)) => turn.orders.len(),
                _ => 0,
            })
            .sum();
        assert!(
            held <= 16 * k,
            "a turn of {k} orders is held as {held} orders: each token copied the turn so far"
        );
    }
    /// A game of more sibling variations than [`VARIATION_DRAWING`] (an
    /// attacker's: `(1. Ng3-f3)` a million times is 12 MB, under the
    /// reader's limit) draws that many of their positions and lists the
    /// rest without diagrams, saying so; the main line is drawn whole, and
    /// a variation within the budget as ever.
    #[test]
    fn a_game_of_countless_variations_draws_a_bounded_number_of_them() {
        let n = VARIATION_DRAWING + 50;
        let text = format!(
            "[Game \"Khan\"]\n[Variant \"Magician\"]\n[GameId \"siblings\"]\n\
             [Event \"e\"]\n[Date \"2026.01.01\"]\n[White \"A\"]\n[Black \"B\"]\n\
             [Result \"*\"]\n[NotationVersion \"1\"]\n[Ruleset \"magician\"]\n\n\
             1. Ng3-f3 {}Ae7-f6 *\n",
            "(1. Ng3-f3) ".repeat(n)
        );
        let record = parse_record::<RawGrammar>(&text).expect("the record reads");
        let tree = tree(Path::new("siblings.yam"), &record);
        assert_eq!(tree.main_frames, 3, "the main line, drawn whole");
        assert_eq!(
            tree.frames.len() - tree.main_frames,
            VARIATION_DRAWING,
            "variation positions drawn"
        );
        assert!(tree.variations_cut);
        // In reading order: the main line's first move, the variations
        // on it (the first ones drawn, the others listed without a frame),
        // the main line's second move.
        assert_eq!(tree.moves.len(), 2 + n);
        assert!(
            tree.moves[..1 + VARIATION_DRAWING]
                .iter()
                .all(Option::is_some)
        );
        assert!(
            tree.moves[1 + VARIATION_DRAWING..1 + n]
                .iter()
                .all(Option::is_none)
        );
        assert_eq!(tree.moves[1 + n], Some(2));
        // Within the budget, nothing is cut.
        let few = parse_record::<RawGrammar>(&text.replacen(
            &"(1. Ng3-f3) ".repeat(n),
            "(1. Ng3-f3) ",
            1,
        ))
        .expect("the record reads");
        assert!(!tree_of(&few).variations_cut);
    }

    fn tree_of(record: &Record<String>) -> Tree {
        tree(Path::new("few.yam"), record)
    }
}
