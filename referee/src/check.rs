//! Checking records move by move while they stream past.
//!
//! [`Checker`] is a [`Visitor`]: the notation reader hands it each token as it
//! reads it, and the checker parses the token with the game's grammar and
//! plays it on the game's position at once, so a whole archive is checked
//! without building records. Variations are checked too, each from the
//! position before the move it replaces.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use yam_notation::castle_siege::{CastleSiegeGrammar, Token as SiegeToken};
use yam_notation::genghis_khan::{GenghisKhanGrammar, Move as CardMove};
use yam_notation::khan::{KhanGrammar, MoveToken};
use yam_notation::{
    Dots, GameKind, GameResult, MoveGrammar, PlainToken, RawTagValue, Skip, Span, TokenError,
    Visitor,
};

use crate::fair_play::chance::PracticeChance;
use crate::fair_play::encoding::Blob;
use crate::fair_play::game_id::GameId;
use crate::replay::{Builtin, RulesCatalog};
use crate::ruleset_error::RulesetError;
use crate::{castle_siege, genghis_khan, khan};

/// Why a game's rules were broken, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Where in the text.
    pub span: Span,
    /// The move number as written before the move (`12.` or `12...`), or
    /// empty for a problem in the header or with the result.
    pub move_number: String,
    /// The offending text.
    pub token: String,
    /// Why it is refused.
    pub reason: String,
    /// The position before the offending move, in the game's own notation
    /// (Khan: the engine FEN, and Yam's position text for siege games).
    pub position: String,
}

/// The verdict on one game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Every move is legal and the result agrees with the final position.
    Legal,
    /// The first rule broken.
    Illegal(Box<Violation>),
    /// The moves are well formed, but the rules could not be applied
    /// without more than the movetext holds (the reason says what).
    RulesNotChecked(String),
}

/// Where the chance of a game whose rules were checked came from: the
/// moves alone, or, for Genghis Khan, a practice seed or a deal recorded
/// from physical cards. Reports say which, since they vouch for different
/// things.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChanceSource {
    /// Nothing hidden: the moves (and the faces they show) are the game.
    Moves,
    /// Genghis Khan: the layout and draws come from the open practice seed
    /// (`Mode "practice"`, `PracticeSeed`).
    PracticeSeed,
    /// Genghis Khan: the Foe layout from the `FoeLayout` tag, each draw as
    /// its token names it (and as the `KhanDeck` tag orders them, if there
    /// is one): a game dealt from physical cards.
    RecordedDeal,
}

impl ChanceSource {
    /// How a report says that the rules were checked, and from what.
    pub fn wording(self) -> &'static str {
        match self {
            ChanceSource::Moves => "rules checked",
            ChanceSource::PracticeSeed => {
                "rules checked from the practice seed (the layout and every draw replayed from the open seed; unverified)"
            }
            ChanceSource::RecordedDeal => {
                "rules checked from the recorded deal (the Foe layout of the FoeLayout tag, each draw as written; the deal itself is as the player recorded it, unverified)"
            }
        }
    }
}

/// What checking one game found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameReport {
    /// Which game.
    pub game: GameKind,
    /// Its `GameId` tag.
    pub game_id: String,
    /// Moves played in the main line.
    pub plies: u32,
    /// The verdict.
    pub verdict: Verdict,
    /// Where the chance the rules were checked with came from.
    pub chance: ChanceSource,
}

/// Whether `result` is one a game of kind `game` can end with at all:
/// scores for the solo Genghis Khan, the two-player results for the
/// others, and no draw in Castle Siege (CS-50).
fn result_of_kind(game: GameKind, result: GameResult) -> Result<(), String> {
    match (game, result) {
        (_, GameResult::Unfinished) => Ok(()),
        (GameKind::GenghisKhan, GameResult::Score { .. }) => Ok(()),
        (GameKind::GenghisKhan, _) => Err(
            "Genghis Khan is a solo game: its result is a score out of its maximum (such as 112/150), or * while it is not over"
                .into(),
        ),
        (_, GameResult::Score { .. }) => {
            Err(format!("a score is the result of a solo game, not of {game}"))
        }
        (GameKind::CastleSiege, GameResult::Draw) => Err(
            "Castle Siege has no draws: the round cap ends the game as a Defender win (CS-50)"
                .into(),
        ),
        _ => Ok(()),
    }
}

/// Whether `result` may close a game of kind `game` that its moves leave
/// unfinished: `*`, or for two-player games an end off the board (a
/// resignation, `1-0` or `0-1`; a forfeit, `+/-`, `-/+`, `-/-`; a draw
/// agreed in Khan). A solo Genghis Khan game that is not over has no
/// final score: it is `*` (abandoned or in progress).
fn unfinished_result(game: GameKind, result: GameResult) -> Result<(), String> {
    result_of_kind(game, result)?;
    match (game, result) {
        (GameKind::GenghisKhan, GameResult::Score { .. }) => {
            Err("the game is not over, so it has no final score yet".into())
        }
        _ => Ok(()),
    }
}

/// A Castle Siege token as read: its value, where, and its text.
type WrittenOrder = (SiegeToken, Span, String);

/// Where a Genghis Khan replay takes its draws from.
#[derive(Debug, Clone)]
enum CardDraws {
    /// The open practice seed's stream.
    Seed(PracticeChance),
    /// The deal recorded from physical cards.
    Dealt(genghis_khan::DealtDraws),
}

/// Replay state of one Genghis Khan game, practice or dealt.
#[derive(Debug, Clone)]
struct CardLine {
    state: genghis_khan::State,
    draws: CardDraws,
    /// Before the last move of this line, where a variation on it starts.
    before_last: Option<(genghis_khan::State, CardDraws)>,
}

/// Replay state of one Khan game.
#[derive(Debug, Clone)]
struct KhanLine {
    position: Box<khan::Position>,
    /// The position before the last move of this line, where a variation
    /// on that move starts; when `last_plain` holds that move, stale
    /// instead (see [`KhanLine::before_last`]).
    before_last: Box<khan::Position>,
    /// The last move, when the fast path played it on `position` itself:
    /// the position before it is then `position` with it taken back. Most
    /// moves are plain and few start a variation, so the position is not
    /// copied a move to keep the one before it.
    last_plain: Option<khan::apply::TakeBack>,
}

impl KhanLine {
    /// This line at `start`, before any move: a new game in the last
    /// game's boxes. Out of line, so that the start is known not to lie in
    /// the boxes it is copied into: inline, it went through a copy on the
    /// stack first (three copies of a position a game instead of two).
    #[inline(never)]
    fn restart(&mut self, start: &khan::Position) {
        *self.position = *start;
        *self.before_last = *start;
        self.last_plain = None;
    }

    /// The position before the last move of this line.
    fn before_last(&mut self) -> &khan::Position {
        if let Some(plain) = self.last_plain.take() {
            *self.before_last = *self.position;
            self.before_last.unplay_plain(&plain);
        }
        &self.before_last
    }
}

/// Why a Khan game cannot start, by the tag at fault.
enum KhanStart {
    /// `RulesetHash`: the ruleset's text is not the one the game pinned.
    Hash(String),
    /// `Ruleset`: no such ruleset, or not a valid one.
    Ruleset(String),
    /// `Position`: not a start position under the ruleset.
    Setup(String),
}

// One per checker, not one per move: the size difference costs nothing.
// A tag byte of its own: every token asks whether the game is Khan's, and
// a discriminant kept in a field's spare values (the default layout) took
// about ten instructions to read back.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
#[repr(u8)]
enum Game {
    Khan {
        line: KhanLine,
        /// Where each move is played before it is known to be legal.
        scratch: Box<khan::Position>,
        /// Lines suspended by open variations.
        stack: Vec<KhanLine>,
    },
    /// Castle Siege turns span many tokens; the main line is gathered and
    /// replayed at the result, with the faces the tokens carry.
    CastleSiege {
        rules: castle_siege::Rules,
        main_line: Vec<(SiegeToken, Span, String)>,
        /// The move numbers written in the main line: the index of the
        /// token each stands before, the number, its dots and where.
        numbers: Vec<(usize, u32, Dots, Span)>,
        /// The open variations, innermost last: each one's line is the
        /// first `.0` tokens of the line it branches from (that line
        /// without the token the variation replaces), then its own tokens
        /// `.1`. Prefixes are shared, not copied: 256 open variations on a
        /// long line cost their own tokens only.
        variations: Vec<(usize, Vec<WrittenOrder>)>,
        /// Tokens replayed for variations so far, against
        /// [`SIEGE_VARIATION_WORK`].
        work: usize,
        /// Why some variation was not checked, if one was not.
        unchecked: Option<String>,
    },
    /// Genghis Khan practice games replay draw by draw from their open
    /// seed, dealt games from their recorded deal; a variation replays from
    /// the state and the draws before the move it replaces.
    GenghisKhan {
        line: CardLine,
        /// Seed or deal.
        source: ChanceSource,
        /// Lines suspended by open variations.
        stack: Vec<CardLine>,
    },
    Unchecked(GameKind, String),
}

/// A visitor that checks every game of an archive against its rules.
#[derive(Debug, Default)]
pub struct Checker {
    game_id: String,
    ruleset: String,
    ruleset_span: Span,
    ruleset_hash: String,
    ruleset_hash_span: Span,
    mode: String,
    practice_seed: String,
    foe_layout: Option<String>,
    foe_layout_span: Span,
    khan_deck: Option<String>,
    setup: String,
    setup_span: Span,
    game: Option<Game>,
    plies: u32,
    depth: u32,
    /// The move number read before the next token, if any.
    pending_number: Option<(u32, Dots)>,
    /// Where that number was written, for a Castle Siege game only (its
    /// faults are found at the end of a line, and name the number's place);
    /// a Khan game's quick numbers come without a span.
    pending_number_at: Span,
    violation: Option<Box<Violation>>,
    /// The Khan rulesets loaded so far, by the name the tags give. Ordered
    /// by name rather than hashed: a game's lookup is then a few string
    /// comparisons among the handful an archive names, not a SipHash.
    khan_rulesets: BTreeMap<String, Result<LoadedKhan, RulesetError>>,
    rulesets: Rulesets,
}

/// Where the checker finds the Khan rulesets that `Ruleset` tags name: the
/// built-in ones unless the caller gives a catalogue that also reads
/// ruleset files (the command line's, which knows the record's directory).
struct Rulesets(Box<dyn RulesCatalog>);

impl Default for Rulesets {
    fn default() -> Rulesets {
        Rulesets(Box::new(Builtin))
    }
}

impl fmt::Debug for Rulesets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Rulesets(..)")
    }
}

impl Checker {
    /// A checker, ready for an archive.
    pub fn new() -> Checker {
        Checker::default()
    }

    /// A checker that takes Khan rulesets from `catalog`, so that a record
    /// may name a ruleset file of its own (`crate::ruleset_name`).
    pub fn with_rulesets(catalog: Box<dyn RulesCatalog>) -> Checker {
        Checker {
            rulesets: Rulesets(catalog),
            ..Checker::default()
        }
    }

    fn violate(&mut self, span: Span, token: &str, reason: String, position: String) {
        if self.violation.is_none() {
            let move_number = match self.pending_number {
                Some((n, Dots::One)) => format!("{n}."),
                Some((n, Dots::Three)) => format!("{n}..."),
                None => String::new(),
            };
            self.violation = Some(Box::new(Violation {
                span,
                move_number,
                token: token.to_owned(),
                reason,
                position,
            }));
        }
    }

    /// Starts a Khan game under the ruleset the tags name, reusing the last
    /// Khan game's boxes when there was one: the start is written into them
    /// from where it lies (the ruleset's, or the Position tag's), not copied
    /// through a return value and then again.
    fn start_khan(&mut self) {
        let started = khan_start(
            &mut self.khan_rulesets,
            &*self.rulesets.0,
            &self.ruleset,
            &self.ruleset_hash,
            &self.setup,
        );
        let start = match started {
            Ok(start) => start,
            Err(fault) => {
                let (span, text, reason) = match fault {
                    KhanStart::Hash(reason) => {
                        (self.ruleset_hash_span, self.ruleset_hash.clone(), reason)
                    }
                    KhanStart::Ruleset(reason) => (self.ruleset_span, self.ruleset.clone(), reason),
                    KhanStart::Setup(reason) => (self.setup_span, self.setup.clone(), reason),
                };
                self.game = None;
                self.violate(span, &text, reason, String::new());
                return;
            }
        };
        let start: &khan::Position = match &start {
            Start::Ruleset(position) => position,
            Start::Tagged(position) => position,
        };
        match &mut self.game {
            // The last game's boxes: three allocations and three frees a
            // game fewer. The scratch is left as it is: every move the
            // general path plays writes it whole before it is read.
            Some(Game::Khan { line, stack, .. }) => {
                line.restart(start);
                stack.clear();
            }
            _ => {
                self.game = Some(Game::Khan {
                    line: KhanLine {
                        position: Box::new(*start),
                        before_last: Box::new(*start),
                        last_plain: None,
                    },
                    scratch: Box::new(*start),
                    stack: Vec::new(),
                });
            }
        }
    }

    fn start_castle_siege(&mut self) -> Option<Game> {
        match castle_siege::Ruleset::builtin(&self.ruleset) {
            Ok(ruleset) => Some(Game::CastleSiege {
                rules: ruleset.rules,
                main_line: Vec::new(),
                numbers: Vec::new(),
                variations: Vec::new(),
                work: 0,
                unchecked: None,
            }),
            Err(e) => {
                self.violate(
                    self.ruleset_span,
                    &self.ruleset.clone(),
                    e.to_string(),
                    String::new(),
                );
                None
            }
        }
    }

    fn start_genghis_khan(&mut self) -> Option<Game> {
        let ruleset = match genghis_khan::Ruleset::builtin(&self.ruleset) {
            Ok(r) => r,
            Err(e) => {
                self.violate(
                    self.ruleset_span,
                    &self.ruleset.clone(),
                    e.to_string(),
                    String::new(),
                );
                return None;
            }
        };
        if let Some(layout) = self.foe_layout.clone() {
            return self.start_dealt(&ruleset, &layout);
        }
        if !self.mode.eq_ignore_ascii_case("practice") || self.practice_seed.is_empty() {
            return Some(Game::Unchecked(
                GameKind::GenghisKhan,
                "the Foe layout and the draws come from the fair-play evidence: check this game with `yam verify`"
                    .into(),
            ));
        }
        let game = GameId::new(self.game_id.clone()).ok()?;
        let seed = Blob::new(self.practice_seed.as_bytes().to_vec()).ok()?;
        let mut chance = PracticeChance::new(&game, &seed);
        match genghis_khan::setup(&ruleset, &mut chance) {
            Ok(state) => Some(Game::GenghisKhan {
                line: CardLine {
                    state,
                    draws: CardDraws::Seed(chance),
                    before_last: None,
                },
                source: ChanceSource::PracticeSeed,
                stack: Vec::new(),
            }),
            Err(e) => {
                self.violate(
                    self.ruleset_span,
                    &self.ruleset.clone(),
                    e.to_string(),
                    String::new(),
                );
                None
            }
        }
    }

    /// A game dealt from physical cards: the rows as the `FoeLayout` tag
    /// lays them (GK-02), the draws as the moves name them.
    fn start_dealt(&mut self, ruleset: &genghis_khan::Ruleset, layout: &str) -> Option<Game> {
        // The reader refuses a bad deal before the checker sees it; a
        // refusal here is for a header that came another way.
        match genghis_khan::Deal::from_tags(Some(layout), self.khan_deck.as_deref()) {
            Ok(Some(deal)) => Some(Game::GenghisKhan {
                line: CardLine {
                    state: deal.setup(ruleset),
                    draws: CardDraws::Dealt(deal.draws()),
                    before_last: None,
                },
                source: ChanceSource::RecordedDeal,
                stack: Vec::new(),
            }),
            Ok(None) => None,
            Err(e) => {
                self.violate(self.foe_layout_span, e.tag, e.to_string(), String::new());
                None
            }
        }
    }

    fn genghis_khan_move(&mut self, mv: &CardMove, text: &str, span: Span) {
        let Some(Game::GenghisKhan { line, .. }) = &mut self.game else {
            return;
        };
        let CardLine { state, draws, .. } = line;
        // The number written before a move is its turn's (the writer's
        // and `yam verify`'s rule).
        if let Some((number, dots)) = self.pending_number.take()
            && (number, dots) != (state.turn(), Dots::One)
        {
            let reason = format!(
                "this move is numbered wrongly: it is turn {turn}, written {turn}.",
                turn = state.turn()
            );
            let position = genghis_khan::tableau(state);
            self.violate(span, text, reason, position);
            return;
        }
        let draws_before = draws.clone();
        let played = match draws {
            CardDraws::Seed(chance) => genghis_khan::play(state, mv, chance),
            CardDraws::Dealt(dealt) => genghis_khan::play_dealt(state, mv, dealt),
        };
        match played {
            Ok((next, _)) => {
                let before = std::mem::replace(state, next);
                line.before_last = Some((before, draws_before));
                if self.depth == 0 {
                    self.plies += 1;
                }
            }
            Err(e) => {
                let position = genghis_khan::tableau(state);
                self.violate(span, text, e.to_string(), position);
            }
        }
    }

    fn khan_move(&mut self, token: &MoveToken, text: &str, span: Span) {
        let Some(Game::Khan { line, scratch, .. }) = &mut self.game else {
            return;
        };
        // Borrowed, not copied: a position is a few hundred bytes and this
        // runs for every move of an archive.
        let before = &*line.position;
        // Read, not taken: a refusal names the number, and the caller
        // clears it after every token.
        if let Some((number, dots)) = self.pending_number
            && !numbered_rightly(before, number, dots)
        {
            let expected = match before.turn() {
                khan::Side::White => format!("{}.", before.fullmoves()),
                khan::Side::Black => format!("{}...", before.fullmoves()),
            };
            let reason = format!(
                "this move is numbered wrongly: it is {}'s move {expected}",
                before.turn()
            );
            let position = position_text(before);
            self.violate(span, text, reason, position);
            return;
        }
        // The fast path plays a plain move on the position itself; every
        // other move, and every refusal, goes the general way.
        if khan::token::resolve_plain_in_place(&mut line.position, token, &mut line.last_plain) {
            if self.depth == 0 {
                self.plies += 1;
            }
            return;
        }
        let before = &*line.position;
        match khan::token::resolve_general_into(before, token, scratch) {
            Ok(_) => {
                // Three boxes rotated, not two positions copied: the old
                // position becomes the one before the last move, the
                // scratch the new position, and the old before-last the
                // next scratch.
                std::mem::swap(&mut line.before_last, &mut line.position);
                std::mem::swap(&mut line.position, scratch);
                line.last_plain = None;
                if self.depth == 0 {
                    self.plies += 1;
                }
            }
            Err(illegal) => {
                let position = position_text(before);
                self.violate(span, text, illegal.to_string(), position);
            }
        }
    }
}

/// Whether the tag `name` is `canonical`, without case (as every tag name
/// is read). The canonical spelling, nearly always the one written, is
/// compared first as it stands (a few word comparisons): the comparison
/// without case goes byte by byte, about 80 instructions for a name.
#[inline(always)]
fn is_tag(name: &str, canonical: &str) -> bool {
    name == canonical || name.eq_ignore_ascii_case(canonical)
}

/// A Khan ruleset as the checker keeps it: loaded, parsed and hashed once
/// a checker (most archives name a handful).
#[derive(Debug)]
struct LoadedKhan {
    ruleset: khan::Ruleset,
    /// The hash of its text, in hex: what a `RulesetHash` tag is compared
    /// with, game after game.
    hash_hex: String,
}

/// Where a Khan game starts: the ruleset's own start, borrowed, or the
/// position a `Position` tag sets up. The latter is boxed: held inline,
/// it made every start, and every `Result` holding one, the size of a
/// position, copied twice on its way to the game's boxes.
enum Start<'a> {
    Ruleset(&'a khan::Position),
    Tagged(Box<khan::Position>),
}

/// The start of a Khan game under the ruleset `name` (found in `loaded`,
/// or loaded from `catalog` into it), with the `RulesetHash` tag `pinned`
/// and the `Position` tag `setup` (empty when absent), or why it cannot
/// start.
fn khan_start<'a>(
    loaded: &'a mut BTreeMap<String, Result<LoadedKhan, RulesetError>>,
    catalog: &dyn RulesCatalog,
    name: &str,
    pinned: &str,
    setup: &str,
) -> Result<Start<'a>, KhanStart> {
    // One lookup for a ruleset already loaded (nearly every game), as the
    // map's borrow allows: a second only the first time.
    if !loaded.contains_key(name) {
        let loading = catalog.load_ruleset(GameKind::Khan, name).and_then(|text| {
            let ruleset =
                khan::Ruleset::from_yaml(&text.text).map_err(|error| RulesetError::Invalid {
                    name: name.to_owned(),
                    error,
                })?;
            Ok(LoadedKhan {
                ruleset,
                hash_hex: text.hash().to_hex(),
            })
        });
        loaded.insert(name.to_owned(), loading);
    }
    let LoadedKhan { ruleset, hash_hex } = match &loaded[name] {
        Ok(found) => found,
        Err(e) => return Err(KhanStart::Ruleset(e.to_string())),
    };
    // A signed record pins its ruleset's text; moves checked against
    // other rules would prove nothing.
    if !pinned.is_empty() && !pinned.eq_ignore_ascii_case(hash_hex) {
        return Err(KhanStart::Hash(format!(
            "the record was played under a ruleset whose text hashes to {}, but ruleset {name} as loaded hashes to {hash_hex}: its text is not the text the game was begun under (a ruleset file changed since?)",
            pinned.to_ascii_lowercase()
        )));
    }
    // The same start as every other replay of a main line; an empty
    // Position tag is no tag here, as it always was for the checker.
    if setup.is_empty() {
        return Ok(Start::Ruleset(ruleset.start()));
    }
    khan::MainLine::start_position(ruleset, Some(setup))
        .map(|position| Start::Tagged(Box::new(position)))
        .map_err(|e| KhanStart::Setup(e.to_string()))
}

/// Whether `number` with `dots` is the number of the move due in `before`.
#[inline(always)]
fn numbered_rightly(before: &khan::Position, number: u32, dots: Dots) -> bool {
    let side_ok = matches!(
        (dots, before.turn()),
        (Dots::One, khan::Side::White) | (Dots::Three, khan::Side::Black)
    );
    number == before.fullmoves() && side_ok
}

/// Tokens a Castle Siege game's variations may replay in all. A variation
/// is replayed from the game's start (its setups and every turn before
/// it), so a record of many long variations costs their lengths times
/// their number; past this, the rest are not checked, and the game is
/// said to be not (wholly) rules-checked rather than valid.
pub const SIEGE_VARIATION_WORK: usize = 4_000_000;

impl Checker {
    /// A token of any game but Khan (see `Visitor::token`), out of line.
    #[inline(never)]
    fn other_token(&mut self, token: &str, span: Span) -> Result<(), TokenError> {
        match &self.game {
            Some(Game::CastleSiege { .. }) => {
                let token_value = CastleSiegeGrammar::parse_move(token)?;
                if let Some(Game::CastleSiege {
                    main_line,
                    numbers,
                    variations,
                    ..
                }) = &mut self.game
                {
                    if let Some((_, own)) = variations.last_mut() {
                        own.push((token_value, span, token.to_owned()));
                    } else {
                        if let Some((number, dots)) = self.pending_number {
                            let at = self.pending_number_at;
                            numbers.push((main_line.len(), number, dots, at));
                        }
                        main_line.push((token_value, span, token.to_owned()));
                    }
                }
            }
            Some(Game::GenghisKhan { .. }) => {
                let mv = GenghisKhanGrammar::parse_move(token)?;
                if self.violation.is_none() {
                    self.genghis_khan_move(&mv, token, span);
                }
            }
            Some(Game::Unchecked(game, _)) => {
                // Still hold the token to its game's grammar.
                match game {
                    GameKind::Khan => drop(KhanGrammar::parse_move(token)?),
                    GameKind::CastleSiege => drop(CastleSiegeGrammar::parse_move(token)?),
                    GameKind::GenghisKhan => drop(GenghisKhanGrammar::parse_move(token)?),
                }
            }
            Some(Game::Khan { .. }) | None => {}
        }
        self.pending_number = None;
        Ok(())
    }

    /// A fault of a Castle Siege main line, found at its end, after its
    /// variations were checked: it stands unless a fault met earlier in
    /// the text does.
    fn violate_before(&mut self, at: Span, token: &str, reason: String) {
        if self
            .violation
            .as_ref()
            .is_some_and(|v| v.span.start > at.start)
        {
            self.violation = None;
        }
        self.violate(at, token, reason, String::new());
    }

    /// A Castle Siege variation closes: replay its line, and refuse its
    /// first token the rules refuse. Faults before its own tokens belong
    /// to the line it branches from, which is checked on its own.
    fn end_siege_variation(&mut self) {
        let Some(Game::CastleSiege {
            rules,
            main_line,
            variations,
            work,
            unchecked,
            ..
        }) = &mut self.game
        else {
            return;
        };
        let Some((start, own)) = variations.pop() else {
            return;
        };
        if self.violation.is_some() || unchecked.is_some() || own.is_empty() {
            return;
        }
        *work += start + own.len();
        if *work > SIEGE_VARIATION_WORK {
            let (_, at, _) = &own[0];
            *unchecked = Some(format!(
                "the main line is legal, but the variations from line {} on were not \
                 rules-checked: replaying them would take more than {SIEGE_VARIATION_WORK} \
                 orders",
                at.start.line
            ));
            return;
        }
        let mut tokens = Vec::with_capacity(start + own.len());
        line_prefix(main_line, variations, start, &mut tokens);
        tokens.extend(own.iter().map(|(t, _, _)| t.clone()));
        if let Err(e) = castle_siege::replay_staged(*rules, &tokens)
            && let Some((_, at, text)) = e
                .index()
                .and_then(|i| i.checked_sub(start))
                .and_then(|i| own.get(i))
        {
            let (at, text) = (*at, text.clone());
            self.violate(at, &text, format!("in a variation: {e}"), String::new());
        }
    }
}

/// The first `len` tokens of the line `variations` ends with (the main line
/// when none is open), into `out`.
fn line_prefix(
    main_line: &[WrittenOrder],
    variations: &[(usize, Vec<WrittenOrder>)],
    len: usize,
    out: &mut Vec<SiegeToken>,
) {
    match variations.split_last() {
        None => out.extend(
            main_line[..len.min(main_line.len())]
                .iter()
                .map(|(t, _, _)| t.clone()),
        ),
        Some(((prefix, own), outer)) => {
            line_prefix(main_line, outer, len.min(*prefix), out);
            let mine = len.saturating_sub(*prefix).min(own.len());
            out.extend(own[..mine].iter().map(|(t, _, _)| t.clone()));
        }
    }
}

/// The result a Khan game's outcome gives: the one `Outcome::result`
/// writes (1-0, 0-1 or 1/2-1/2).
fn outcome_result(outcome: &khan::outcome::Outcome) -> GameResult {
    match outcome.winner() {
        Some(khan::Side::White) => GameResult::FirstWins,
        Some(khan::Side::Black) => GameResult::SecondWins,
        None => GameResult::Draw,
    }
}

fn position_text(pos: &khan::Position) -> String {
    if pos.tower_squares().is_empty() {
        pos.fen()
    } else {
        pos.to_yam()
    }
}

impl Visitor for Checker {
    type Output = GameReport;

    fn begin_game(&mut self) {
        self.game_id.clear();
        self.ruleset.clear();
        self.ruleset_hash.clear();
        self.setup.clear();
        self.mode.clear();
        self.practice_seed.clear();
        self.foe_layout = None;
        self.khan_deck = None;
        // A Khan game is kept for its boxes, which the next Khan game
        // starts in (see `start_khan`); the game read next is set up by
        // `end_tags`, before any move is read.
        if !matches!(self.game, Some(Game::Khan { .. })) {
            self.game = None;
        }
        self.plies = 0;
        self.depth = 0;
        self.pending_number = None;
        self.violation = None;
    }

    fn tag(&mut self, name: &str, value: RawTagValue<'_>, span: Span) -> Result<(), TokenError> {
        let target = if is_tag(name, "GameId") {
            &mut self.game_id
        } else if is_tag(name, "Ruleset") {
            self.ruleset_span = span;
            &mut self.ruleset
        } else if is_tag(name, "RulesetHash") {
            self.ruleset_hash_span = span;
            &mut self.ruleset_hash
        } else if is_tag(name, "Position") {
            self.setup_span = span;
            &mut self.setup
        } else if is_tag(name, "Mode") {
            &mut self.mode
        } else if is_tag(name, "PracticeSeed") {
            &mut self.practice_seed
        } else if is_tag(name, genghis_khan::deal::FOE_LAYOUT_TAG) {
            self.foe_layout_span = span;
            self.foe_layout = Some(value.decode().into_owned());
            return Ok(());
        } else if is_tag(name, genghis_khan::deal::KHAN_DECK_TAG) {
            self.khan_deck = Some(value.decode().into_owned());
            return Ok(());
        } else {
            return Ok(());
        };
        target.clear();
        target.push_str(&value.decode());
        Ok(())
    }

    fn end_tags(&mut self, game: GameKind) -> Result<Skip, Cow<'static, str>> {
        match game {
            GameKind::Khan => self.start_khan(),
            GameKind::CastleSiege => self.game = self.start_castle_siege(),
            GameKind::GenghisKhan => self.game = self.start_genghis_khan(),
        }
        Ok(Skip(false))
    }

    fn move_number(&mut self, number: u32, dots: Dots, span: Span) {
        self.pending_number = Some((number, dots));
        self.pending_number_at = span;
    }

    fn token(&mut self, token: &str, span: Span) -> Result<(), TokenError> {
        // Khan's tokens on their own path: nearly every token of an archive
        // is one, and the other games' paths, out of line, no longer widen
        // this one's frame.
        let Some(Game::Khan { .. }) = &self.game else {
            return self.other_token(token, span);
        };
        // The plain shape first: its answer stays in registers, where the
        // grammar's `Result` (its error is large) goes through memory.
        // Anything else, every error included, is the grammar's.
        let mv = match MoveToken::parse_plain(token) {
            Some(mv) => mv,
            None => KhanGrammar::parse_move(token)?,
        };
        if self.violation.is_none() {
            self.khan_move(&mv, token, span);
        }
        self.pending_number = None;
        Ok(())
    }

    fn plain_move_number(&mut self, number: u32) -> bool {
        // A Khan game's only: a Castle Siege game keeps the number's place.
        if !matches!(self.game, Some(Game::Khan { .. })) {
            return false;
        }
        self.pending_number = Some((number, Dots::One));
        true
    }

    fn plain_token(&mut self, token: PlainToken<'_>) -> bool {
        // What `token` does for a plain Khan move the fast path plays, with
        // the token read from the reader's word; anything else (another
        // game, a refusal, a move for the general path, a game already
        // refused) is declined untouched, and `token` decides it.
        let Some(Game::Khan { line, .. }) = &mut self.game else {
            return false;
        };
        if self.violation.is_some() {
            return false;
        }
        let Some(mv) = MoveToken::parse_plain_word(token) else {
            return false;
        };
        if let Some((number, dots)) = self.pending_number
            && !numbered_rightly(&line.position, number, dots)
        {
            return false;
        }
        if !khan::token::resolve_plain_in_place(&mut line.position, &mv, &mut line.last_plain) {
            return false;
        }
        if self.depth == 0 {
            self.plies += 1;
        }
        self.pending_number = None;
        true
    }

    fn begin_variation(&mut self) -> Skip {
        self.depth += 1;
        self.pending_number = None;
        match &mut self.game {
            Some(Game::Khan { line, stack, .. }) => {
                let before_last = *line.before_last();
                stack.push(line.clone());
                *line.position = before_last;
            }
            Some(Game::CastleSiege {
                main_line,
                variations,
                ..
            }) => {
                // A variation replaces the token before it: its line is the
                // line it branches from without that token, then its own.
                let parent = variations
                    .last()
                    .map_or(main_line.len(), |(prefix, own)| prefix + own.len());
                variations.push((parent.saturating_sub(1), Vec::new()));
            }
            Some(Game::GenghisKhan { line, stack, .. }) => {
                stack.push(line.clone());
                // Before any move, a variation starts from the layout.
                if let Some((state, draws)) = line.before_last.take() {
                    line.state = state;
                    line.draws = draws;
                }
            }
            _ => {}
        }
        Skip(false)
    }

    fn end_variation(&mut self) {
        self.depth = self.depth.saturating_sub(1);
        self.pending_number = None;
        self.end_siege_variation();
        match &mut self.game {
            Some(Game::Khan { line, stack, .. }) => {
                if let Some(outer) = stack.pop() {
                    *line = outer;
                }
            }
            Some(Game::GenghisKhan { line, stack, .. }) => {
                if let Some(outer) = stack.pop() {
                    *line = outer;
                }
            }
            _ => {}
        }
    }

    fn result(&mut self, result: GameResult, span: Span) {
        // A Castle Siege variation is checked as it closes, its main line
        // here: a fault found in a variation does not stand for the main
        // line's, which may come before it in the text.
        let siege = matches!(self.game, Some(Game::CastleSiege { .. }));
        if self.violation.is_some() && !siege {
            return;
        }
        if let Some(Game::CastleSiege {
            rules,
            main_line,
            numbers,
            ..
        }) = &self.game
        {
            let tokens: Vec<SiegeToken> = main_line.iter().map(|(t, _, _)| t.clone()).collect();
            let staged = castle_siege::replay_staged(*rules, &tokens);
            // The move numbers, as `yam verify` holds them: a turn's round
            // and side (`3.` the Defender's, `3...` the Attacker's); the
            // setups take none.
            let turns: &[(usize, u32, castle_siege::Side)] = match &staged {
                Ok(castle_siege::Staged::Play(replayed)) => &replayed.turns,
                _ => &[],
            };
            // A movetext that does not replay is refused for that first.
            let numbered = if staged.is_ok() { &numbers[..] } else { &[] };
            for &(index, number, dots, at) in numbered {
                let expected = turns
                    .iter()
                    .rev()
                    .find(|(start, _, _)| *start <= index)
                    .map(|&(_, round, side)| {
                        let dots = match side {
                            castle_siege::Side::Defender => Dots::One,
                            castle_siege::Side::Attacker => Dots::Three,
                        };
                        (round, dots)
                    });
                if expected == Some((number, dots)) {
                    continue;
                }
                let show = |n: u32, d: Dots| match d {
                    Dots::One => format!("{n}."),
                    Dots::Three => format!("{n}..."),
                };
                let found = show(number, dots);
                let reason = match expected {
                    Some((n, d)) => {
                        format!("this move is numbered wrongly: it is move {}", show(n, d))
                    }
                    None => "the setups come before move 1 and take no number".to_owned(),
                };
                self.violate_before(at, &found, reason);
                return;
            }
            match staged {
                Ok(castle_siege::Staged::Play(replayed)) => {
                    self.plies = u32::try_from(replayed.orders).unwrap_or(u32::MAX);
                    let position = || castle_siege::diagram(&replayed.state);
                    if let Some(outcome) = replayed.state.outcome() {
                        if outcome.result() != result.to_string() {
                            let reason = format!(
                                "the game is over ({outcome}), so the result must be {}",
                                outcome.result()
                            );
                            self.violate(span, &result.to_string(), reason, position());
                        }
                    } else if let Err(reason) = unfinished_result(GameKind::CastleSiege, result) {
                        self.violate(span, &result.to_string(), reason, position());
                    }
                }
                // CS-07 to CS-10: a game in its setups is a game in
                // progress (straight from its challenge, or sealed).
                Ok(castle_siege::Staged::Setup { revealed, sealed }) => {
                    self.plies = 0;
                    if let Err(reason) = unfinished_result(GameKind::CastleSiege, result) {
                        let position = format!(
                            "the setup stage: {sealed} sealed, {} revealed",
                            revealed.len()
                        );
                        self.violate(span, &result.to_string(), reason, position);
                    }
                }
                Err(e) => {
                    let (at, text) = match e.index().and_then(|i| main_line.get(i)) {
                        Some((_, at, text)) => (*at, text.clone()),
                        None => (span, result.to_string()),
                    };
                    self.violate_before(at, &text, e.to_string());
                }
            }
            return;
        }
        if let Some(Game::GenghisKhan { line, .. }) = &self.game {
            let state = &line.state;
            let expected = state.result();
            if state.is_over() && expected != result {
                let reason = format!("the game is over, so the result must be {expected}");
                let position = genghis_khan::tableau(state);
                self.violate(span, &result.to_string(), reason, position);
            } else if !state.is_over()
                && let Err(reason) = unfinished_result(GameKind::GenghisKhan, result)
            {
                let reason = format!("{reason} (the score stands at {})", state.score());
                let position = genghis_khan::tableau(state);
                self.violate(span, &result.to_string(), reason, position);
            }
            return;
        }
        // A game whose moves cannot be replayed still has a result of its
        // game's kind.
        if let Some(Game::Unchecked(game, _)) = &self.game
            && let Err(reason) = result_of_kind(*game, result)
        {
            self.violate(span, &result.to_string(), reason, String::new());
            return;
        }
        if let Some(Game::Khan { line, .. }) = &self.game {
            let pos = &*line.position;
            if let Some(outcome) = pos.outcome() {
                // Compared without writing the record's result out.
                if outcome_result(&outcome) != result {
                    let pos = *pos;
                    self.violate(
                        span,
                        &result.to_string(),
                        format!(
                            "the game is over ({outcome}), so the result must be {}",
                            outcome.result()
                        ),
                        position_text(&pos),
                    );
                }
            } else if let Err(reason) = unfinished_result(GameKind::Khan, result) {
                let pos = *pos;
                self.violate(span, &result.to_string(), reason, position_text(&pos));
            }
        }
    }

    fn end_game(&mut self) -> GameReport {
        let mut chance = ChanceSource::Moves;
        let (game, unchecked) = match &self.game {
            Some(Game::Khan { .. }) | None => (GameKind::Khan, None),
            Some(Game::CastleSiege { unchecked, .. }) => (GameKind::CastleSiege, unchecked.clone()),
            Some(Game::GenghisKhan { source, .. }) => {
                chance = *source;
                (GameKind::GenghisKhan, None)
            }
            Some(Game::Unchecked(g, why)) => (*g, Some(why.clone())),
        };
        let verdict = match (self.violation.take(), unchecked) {
            (Some(v), _) => Verdict::Illegal(v),
            (None, None) => Verdict::Legal,
            (None, Some(why)) => Verdict::RulesNotChecked(why),
        };
        GameReport {
            game,
            game_id: self.game_id.clone(),
            plies: self.plies,
            verdict,
            chance,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Checker, GameReport, Verdict, outcome_result, result_of_kind, unfinished_result};
    use crate::khan;
    use yam_notation::{GameKind, GameResult};

    /// The first game of `text`, checked.
    fn check(text: &str) -> GameReport {
        let mut reader = yam_notation::Reader::new(text.as_bytes());
        reader
            .read_game(&mut Checker::new())
            .expect("readable")
            .expect("a game")
    }

    /// A random game of `ruleset` (seeded, stopped before it ends), written
    /// with a variation after every move: the first other legal move of the
    /// position before it (`legal_alternative`), or a move legal only in the
    /// position after it, so not where the variation starts (`false`).
    /// Returns the record and the number of variations written.
    fn game_with_variations(ruleset: &str, seed: u64, legal_alternative: bool) -> (String, usize) {
        let mut text = header(ruleset, "v");
        let mut variations = 0;
        for (pos, mv, next) in random_walk(ruleset, seed, 120) {
            let moves = khan::legal_moves(&pos);
            let number = |p: &khan::Position| match p.turn() {
                khan::Side::White => format!("{}.", p.fullmoves()),
                khan::Side::Black => format!("{}...", p.fullmoves()),
            };
            let token = khan::to_token(&pos, &mv).unwrap();
            text.push_str(&format!("{} {token} ", number(&pos)));
            let alternative = if legal_alternative {
                moves
                    .iter()
                    .find(|m| **m != mv)
                    .map(|m| (number(&pos), khan::to_token(&pos, m).unwrap()))
            } else {
                khan::legal_moves(&next)
                    .into_iter()
                    .find(|m| pos.check(m).is_err() && pos.piece_at(m.from).is_none())
                    .map(|m| (number(&next), khan::to_token(&next, &m).unwrap()))
            };
            if let Some((n, alt)) = alternative {
                text.push_str(&format!("({n} {alt}) "));
                variations += 1;
            }
        }
        text.push_str("*\n");
        (text, variations)
    }

    /// The tags of a test game of `ruleset`.
    fn header(ruleset: &str, id: &str) -> String {
        format!(
            "[Game \"Khan\"]\n[Variant \"Test\"]\n[GameId \"{id}\"]\n[Date \"2026.01.01\"]\n\
             [NotationVersion \"1\"]\n[White \"W\"]\n[Black \"B\"]\n\
             [Ruleset \"{ruleset}\"]\n[Result \"*\"]\n\n"
        )
    }

    /// Up to `plies` random legal moves from `ruleset`'s start (seeded),
    /// stopped before the game ends: each with the positions before and
    /// after it.
    fn random_walk(
        ruleset: &str,
        seed: u64,
        plies: usize,
    ) -> Vec<(khan::Position, khan::Move, khan::Position)> {
        let mut rng = seed | 1;
        let mut pos = khan::Ruleset::builtin(ruleset).unwrap().start_position();
        let mut walk = Vec::new();
        for _ in 0..plies {
            let moves = khan::legal_moves(&pos);
            if moves.is_empty() {
                break;
            }
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let mv = moves[(rng % moves.len() as u64) as usize];
            let next = khan::apply(&pos, &mv).unwrap().position;
            if next.outcome().is_some() {
                break;
            }
            walk.push((pos, mv, next));
            pos = next;
        }
        walk
    }

    /// The checker with the reader's quick offers declined, so every token
    /// and number goes through `token` and `move_number` with its span.
    struct Declining(Checker);

    impl yam_notation::Visitor for Declining {
        type Output = GameReport;
        fn begin_game(&mut self) {
            self.0.begin_game();
        }
        fn tag(
            &mut self,
            name: &str,
            value: yam_notation::RawTagValue<'_>,
            span: yam_notation::Span,
        ) -> Result<(), yam_notation::TokenError> {
            self.0.tag(name, value, span)
        }
        fn end_tags(
            &mut self,
            game: GameKind,
        ) -> Result<yam_notation::Skip, std::borrow::Cow<'static, str>> {
            self.0.end_tags(game)
        }
        fn move_number(&mut self, number: u32, dots: yam_notation::Dots, span: yam_notation::Span) {
            self.0.move_number(number, dots, span);
        }
        fn token(
            &mut self,
            token: &str,
            span: yam_notation::Span,
        ) -> Result<(), yam_notation::TokenError> {
            self.0.token(token, span)
        }
        fn begin_variation(&mut self) -> yam_notation::Skip {
            self.0.begin_variation()
        }
        fn end_variation(&mut self) {
            self.0.end_variation();
        }
        fn result(&mut self, result: GameResult, span: yam_notation::Span) {
            self.0.result(result, span);
        }
        fn end_game(&mut self) -> GameReport {
            self.0.end_game()
        }
    }

    /// A random game of `ruleset` with every white move numbered `N.` (the
    /// reader's quick shape), spoiled at ply `spoil` in one of several ways.
    fn spoiled_game(ruleset: &str, seed: u64, spoil: usize, how: u64) -> String {
        let mut text = header(ruleset, "q");
        for (ply, (pos, mv, next)) in random_walk(ruleset, seed, 90).into_iter().enumerate() {
            let mut number = match pos.turn() {
                khan::Side::White => Some(pos.fullmoves()),
                khan::Side::Black => None,
            };
            let mut token = khan::to_token(&pos, &mv).unwrap().to_string();
            if ply == spoil {
                match how % 5 {
                    // A wrong number, on a move of either side.
                    0 => number = Some(pos.fullmoves() + 1),
                    // A move of the side not to move.
                    1 => {
                        if let Some(m) = khan::legal_moves(&next).first() {
                            token = khan::to_token(&next, m).unwrap().to_string();
                        }
                    }
                    // A piece that is not there.
                    2 => token.replace_range(0..1, if token.starts_with('S') { "W" } else { "S" }),
                    // Not a token of the grammar.
                    3 => token.replace_range(1..2, "z"),
                    // A capture written as a move, or a move as a capture.
                    _ => {
                        token = if token.contains('-') {
                            token.replacen('-', "x", 1)
                        } else {
                            token.replacen('x', "-", 1)
                        }
                    }
                }
            }
            if let Some(n) = number {
                text.push_str(&format!("{n}. "));
            }
            text.push_str(&token);
            text.push(if ply % 7 == 6 { '\n' } else { ' ' });
        }
        text.push_str("*\n");
        text
    }

    #[test]
    fn the_quick_offers_check_as_the_full_calls_do() {
        // Legal games and games spoiled at one ply in five ways: the same
        // report, violation, place and position, byte for byte, whether the
        // reader's quick offers are taken or declined.
        let mut refused = 0;
        for (ruleset, _) in khan::ruleset::BUILTIN {
            for seed in 1..5u64 {
                for spoil in [0, 1, 2, 7, 30, 61, usize::MAX] {
                    for how in 0..5 {
                        let text = spoiled_game(ruleset, seed, spoil, how);
                        let mut reader = yam_notation::Reader::new(text.as_bytes());
                        let quick = reader.read_game(&mut Checker::new());
                        let mut reader = yam_notation::Reader::new(text.as_bytes());
                        let full = reader.read_game(&mut Declining(Checker::new()));
                        // A syntax error is the reader's, with its place.
                        let (quick, full) = (format!("{quick:?}"), format!("{full:?}"));
                        assert_eq!(quick, full, "{ruleset} {seed} {spoil} {how}\n{text}");
                        refused += usize::from(!quick.contains("verdict: Legal"));
                    }
                }
            }
        }
        assert!(refused > 100, "{refused} spoiled games refused");
    }

    #[test]
    fn a_games_report_does_not_depend_on_the_games_checked_before_it() {
        // One checker keeps a Khan game's boxes for the next Khan game
        // (`start_khan`) and its rulesets for the archive: every game of
        // an archive gets the report a checker of its own gives it, after
        // any other game, whether legal, refused at a move, refused at the
        // start (an unknown ruleset, a pinned hash that differs, a
        // Position tag that is not a position), set up by a Position tag,
        // or left with variations open.
        let mut games = Vec::new();
        for (n, (ruleset, _)) in khan::ruleset::BUILTIN.iter().enumerate() {
            let seed = n as u64 + 1;
            games.push(spoiled_game(ruleset, seed, usize::MAX, 0));
            // Spoiled in the ways the rules refuse (the fourth is the
            // grammar's, a syntax error).
            games.push(spoiled_game(ruleset, seed, 7, [0, 1, 2, 4][n % 4]));
            games.push(game_with_variations(ruleset, seed, true).0);
            games.push(game_with_variations(ruleset, seed, false).0);
            // A variation before the first move, and one on the first move.
            let first = random_walk(ruleset, seed, 2);
            let token = |i: usize| khan::to_token(&first[i].0, &first[i].1).unwrap();
            games.push(format!(
                "{}(1. {}) 1. {} ({}) *\n",
                header(ruleset, "early"),
                token(0),
                token(0),
                token(0)
            ));
        }
        // A game set up by a Position tag (its start is the tag's, not the
        // ruleset's), and one whose Position tag is not a position.
        let walk = random_walk("rescue-khan", 3, 3);
        let (set_up, mv, _) = &walk[2];
        let number = match set_up.turn() {
            khan::Side::White => format!("{}.", set_up.fullmoves()),
            khan::Side::Black => format!("{}...", set_up.fullmoves()),
        };
        let with_position = |id: &str, position: &str| {
            header("rescue-khan", id)
                .replace("[Result", &format!("[Position \"{position}\"]\n[Result"))
        };
        games.push(format!(
            "{}{number} {} *\n",
            with_position("set-up", &set_up.to_yam()),
            khan::to_token(set_up, mv).unwrap()
        ));
        games.push(format!("{}1. Ad2-d3 *\n", with_position("bad-setup", "x")));
        games.push(format!(
            "{}1. Ad2-d3 *\n",
            header("no-such-ruleset", "unknown")
        ));
        games.push(
            header("rescue-khan", "pinned").replace(
                "[Result",
                &format!("[RulesetHash \"{}\"]\n[Result", "ab".repeat(32)),
            ) + "1. Ad2-d3 *\n",
        );
        // Everything but the place: the games stand on other lines in the
        // archive than alone.
        let unplaced = |report: &GameReport| {
            let verdict = match &report.verdict {
                Verdict::Illegal(v) => format!(
                    "illegal {} {} {} {}",
                    v.move_number, v.token, v.reason, v.position
                ),
                other => format!("{other:?}"),
            };
            let GameReport {
                game,
                game_id,
                plies,
                chance,
                ..
            } = report;
            format!("{game:?} {game_id} {plies} {chance:?} {verdict}")
        };
        let alone: Vec<String> = games.iter().map(|g| unplaced(&check(g))).collect();
        assert!(alone.iter().any(|r| r.contains("Legal")));
        // A spoiled game of each ruleset, and the three refused at the start.
        assert!(alone.iter().filter(|r| r.contains("illegal")).count() >= 8);
        let report = |id: &str| {
            alone
                .iter()
                .find(|r| r.contains(&format!(" {id} ")))
                .unwrap()
        };
        assert!(
            report("set-up").ends_with(" 1 Moves Legal"),
            "{}",
            report("set-up")
        );
        assert!(
            report("bad-setup").contains("illegal  x "),
            "{}",
            report("bad-setup")
        );
        for rotation in [0, 3, 7, 11] {
            let mut order: Vec<usize> = (0..games.len()).collect();
            order.rotate_left(rotation % games.len());
            // Each game twice over, the second time after itself.
            let order: Vec<usize> = order.iter().flat_map(|&i| [i, i]).collect();
            let archive: String = order.iter().map(|&i| format!("{}\n", games[i])).collect();
            let mut reader = yam_notation::Reader::new(archive.as_bytes());
            let mut checker = Checker::new();
            for &i in &order {
                let report = reader.read_game(&mut checker).expect("readable");
                let report = report.expect("a game");
                assert_eq!(
                    unplaced(&report),
                    alone[i],
                    "game {i} after rotation {rotation}"
                );
            }
            assert!(reader.read_game(&mut checker).expect("readable").is_none());
        }
    }

    #[test]
    fn tag_names_are_read_without_case() {
        // The canonical spelling is compared first; any other spelling is
        // the same tag all the same.
        let text = header("no-such-ruleset", "x")
            .replace("[GameId", "[GAMEID")
            .replace("[Ruleset", "[ruleset")
            + "*\n";
        let report = check(&text);
        assert_eq!(report.game_id, "x");
        let Verdict::Illegal(v) = report.verdict else {
            panic!("{:?}", report.verdict);
        };
        assert_eq!(v.token, "no-such-ruleset");
        let report = check(&text.replace("no-such-ruleset", "rescue-khan"));
        assert_eq!(report.verdict, Verdict::Legal);
    }

    #[test]
    fn a_khan_variation_starts_from_the_position_before_the_move_it_replaces() {
        // Every move of these games, plain (played in place by the fast
        // path, the position before it kept as the move to take back) or
        // not (spells, tower squares, carriers), is followed by a variation.
        for (ruleset, _) in khan::ruleset::BUILTIN {
            for seed in 1..6 {
                let (text, variations) = game_with_variations(ruleset, seed, true);
                assert!(variations > 10, "{ruleset} {seed}");
                let report = check(&text);
                assert!(
                    matches!(report.verdict, Verdict::Legal),
                    "{ruleset} {seed}: {:?}\n{text}",
                    report.verdict
                );
                let (text, variations) = game_with_variations(ruleset, seed, false);
                if variations > 0 {
                    let report = check(&text);
                    assert!(
                        matches!(report.verdict, Verdict::Illegal(_)),
                        "{ruleset} {seed}: a move of the position after the move is \
                         refused where the variation starts\n{text}"
                    );
                }
            }
        }
    }

    #[test]
    fn an_outcome_gives_the_result_it_writes() {
        use khan::outcome::{DrawReason, Outcome, WinReason};
        for outcome in [
            Outcome::Win {
                winner: khan::Side::White,
                reason: WinReason::Checkmate,
            },
            Outcome::Win {
                winner: khan::Side::Black,
                reason: WinReason::NoLeader,
            },
            Outcome::Draw {
                reason: DrawReason::Stalemate,
            },
        ] {
            assert_eq!(outcome_result(&outcome).to_string(), outcome.result());
        }
    }

    fn score(points: u32) -> GameResult {
        GameResult::Score { points, max: 150 }
    }

    #[test]
    fn each_game_has_its_own_results() {
        use GameKind::{CastleSiege, GenghisKhan, Khan};
        // Accepted.
        for (game, result) in [
            (Khan, GameResult::Draw),
            (Khan, GameResult::FirstWins),
            (CastleSiege, GameResult::SecondWinsByForfeit),
            (GenghisKhan, score(77)),
            (GenghisKhan, GameResult::Unfinished),
        ] {
            assert_eq!(result_of_kind(game, result), Ok(()), "{game} {result}");
        }
        // Refused, with the reason.
        let refused = |game, result| result_of_kind(game, result).unwrap_err();
        assert!(refused(CastleSiege, GameResult::Draw).contains("CS-50"));
        assert!(refused(Khan, score(77)).contains("solo game, not of Khan"));
        assert!(refused(GenghisKhan, GameResult::FirstWins).contains("solo game"));
    }

    #[test]
    fn a_solo_game_not_over_has_no_score_and_a_two_player_game_may_end_off_the_board() {
        assert_eq!(
            unfinished_result(GameKind::GenghisKhan, score(77)),
            Err("the game is not over, so it has no final score yet".to_owned())
        );
        assert_eq!(
            unfinished_result(GameKind::GenghisKhan, GameResult::Unfinished),
            Ok(())
        );
        assert_eq!(
            unfinished_result(GameKind::CastleSiege, GameResult::FirstWins),
            Ok(())
        );
        assert!(unfinished_result(GameKind::CastleSiege, GameResult::Draw).is_err());
    }
}
