//! Seeded self-play: both sides declare random legal orders until the game
//! ends ([`Policy::Random`]), or random legal orders ranked by a crude greed
//! ([`Policy::Eager`]). It exercises the referee end to end (setups, every phase, skips,
//! whole-turn and phase-by-phase declarations, every ending) and gives a
//! rough balance figure under random play.
//!
//! Two streams, both derived from the game's seed with SHA-256:
//! - the **dice** come through the door for chance from a
//!   [`PracticeChance`] whose open seed is
//!   `SHA-256("yam/castle-siege/selfplay/dice" || seed u64 BE)`, exactly as a
//!   practice game would draw them;
//! - the **players' choices** (setups, orders) come from a SplitMix64
//!   generator seeded with the first 8 bytes of
//!   `SHA-256("yam/castle-siege/selfplay/choices" || seed u64 BE)`. It never
//!   produces a protocol value.

use sha2::{Digest, Sha256};
use yam_notation::castle_siege::{Order, Phase, Placement, Side, Token, UnitKind};

use super::army::{army, breach_profile, can_attack, is_infantry};
use super::attack::check_attack;
use super::board::{Square, is_castle, is_moat, is_victory};
use super::declaration::Declaration;
use super::illegal::Refusal;
use super::legal::{legal_attacks, legal_breaches, legal_steps};
use super::outcome::{Outcome, WinReason};
use super::resolve::{ResolveError, resolve};
use super::ruleset::{Ruleset, TurnMode};
use super::setup::{Setup, SetupError};
use super::state::State;
use super::step::{EntryCondition, check_step};
use crate::fair_play::chance::{ChanceError, PracticeChance};
use crate::fair_play::encoding::{Blob, ValueError};
use crate::fair_play::game_id::GameId;
use crate::seeded::SplitMix64;

/// How the driver chooses among the legal orders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Policy {
    /// Uniformly random legal orders (every unit that can attack does).
    #[default]
    Random,
    /// Random legal orders, ranked by a crude greed: attackers close on the
    /// walls, climb off towers, go through breaches and for the victory
    /// squares, every breaching unit tries; defenders meet intruders and
    /// shoot at intruders first. A sanity check against the rulings' own
    /// simulation (its section 2.3), not an AI.
    Eager,
}

/// How a self-played game went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameSummary {
    /// The seed.
    pub seed: u64,
    /// How it ended.
    pub outcome: Outcome,
    /// The round it ended in.
    pub rounds: u32,
    /// Attacking units left.
    pub attackers_left: usize,
    /// Defending units left.
    pub defenders_left: usize,
    /// Breaches made.
    pub breaches: usize,
    /// Declarations resolved.
    pub declarations: usize,
    /// Orders declared.
    pub orders: usize,
    /// Orders skipped.
    pub skipped: usize,
    /// Dice drawn.
    pub dice: usize,
    /// The whole movetext: the setups, then every resolved order.
    pub movetext: Vec<Token>,
}

/// A self-played game went wrong: a referee error (the driver only declares
/// legal orders, so any refusal is a bug) or a failure of the dice.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelfPlayError {
    /// The referee refused a declaration of legal orders.
    #[error("seed {seed}: the referee refused {declaration:?}: {refusal}")]
    Refused {
        /// The seed.
        seed: u64,
        /// The declaration, as text.
        declaration: String,
        /// Why.
        refusal: Refusal,
    },
    /// The door for chance failed.
    #[error("seed {seed}: {error}")]
    Chance {
        /// The seed.
        seed: u64,
        /// Why.
        error: ChanceError,
    },
    /// A generated setup was refused.
    #[error("seed {seed}: {error}")]
    Setup {
        /// The seed.
        seed: u64,
        /// Why.
        error: SetupError,
    },
    /// The practice stream could not be set up.
    #[error("seed {seed}: {error}")]
    Value {
        /// The seed.
        seed: u64,
        /// Why.
        error: ValueError,
    },
    /// The game did not end within the round cap (the referee must end it).
    #[error("seed {seed}: no end after {declarations} declarations")]
    NoEnd {
        /// The seed.
        seed: u64,
        /// How many were resolved.
        declarations: usize,
    },
}

/// Totals over many games.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Games played.
    pub games: u64,
    /// Games the Attacker won.
    pub attacker_wins: u64,
    /// Sum of the rounds of every game.
    pub total_rounds: u64,
    /// Wins by entering a victory square (CS-46).
    pub victory_square: u64,
    /// Wins by killing every defender (CS-48).
    pub defenders_eliminated: u64,
    /// Wins by attrition (CS-47).
    pub attackers_reduced: u64,
    /// Wins because no attacking infantry was left (CS-49).
    pub no_infantry: u64,
    /// Wins on the round cap (CS-50).
    pub round_cap: u64,
    /// Dice drawn.
    pub dice: u64,
    /// Orders skipped.
    pub skipped: u64,
}

impl Stats {
    /// Adds one game.
    pub fn add(&mut self, g: &GameSummary) {
        self.games += 1;
        if g.outcome.winner == Side::Attacker {
            self.attacker_wins += 1;
        }
        self.total_rounds += u64::from(g.rounds);
        match g.outcome.reason {
            WinReason::VictorySquare(_) => self.victory_square += 1,
            WinReason::DefendersEliminated => self.defenders_eliminated += 1,
            WinReason::AttackersReduced { .. } => self.attackers_reduced += 1,
            WinReason::NoInfantry => self.no_infantry += 1,
            WinReason::RoundCap { .. } => self.round_cap += 1,
            WinReason::Resignation => {}
        }
        self.dice += g.dice as u64;
        self.skipped += g.skipped as u64;
    }

    /// The Attacker's share of wins, 0 to 1.
    pub fn attacker_rate(&self) -> f64 {
        if self.games == 0 {
            0.0
        } else {
            self.attacker_wins as f64 / self.games as f64
        }
    }

    /// The mean length in rounds.
    pub fn mean_rounds(&self) -> f64 {
        if self.games == 0 {
            0.0
        } else {
            self.total_rounds as f64 / self.games as f64
        }
    }
}

fn derive(label: &str, seed: u64) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(label.as_bytes());
    h.update(seed.to_be_bytes());
    h.finalize().into()
}

/// A random legal setup for `side` (CS-08: any permutation of the army).
fn random_setup(rng: &mut SplitMix64, side: Side) -> Result<Setup, SetupError> {
    let mut units: Vec<UnitKind> = army(side)
        .iter()
        .flat_map(|(k, n)| std::iter::repeat_n(*k, usize::from(*n)))
        .collect();
    rng.shuffle(&mut units);
    let placement = Placement::new(side, units).ok_or(SetupError::SidesMixed)?;
    Setup::new(placement)
}

/// Step orders: a priority list of 0 to 8 distinct legal steps, at random
/// or (eager) the best-scoring ones first.
fn random_steps(rng: &mut SplitMix64, state: &State, policy: Policy) -> Vec<Order> {
    let mut steps = legal_steps(state);
    rng.shuffle(&mut steps);
    match policy {
        Policy::Random => steps.truncate(rng.below(9)),
        Policy::Eager => {
            // A stable sort keeps the shuffled order among equal scores.
            steps.retain(|o| step_score(state, o) >= 0);
            steps.sort_by_key(|o| std::cmp::Reverse(step_score(state, o)));
            steps.truncate(8);
        }
    }
    steps
}

/// How far `sq` is from the nearest square that satisfies `goal`.
fn distance_to(state: &State, sq: Square, goal: impl Fn(Square) -> bool) -> i64 {
    let adjacency = state.rules().adjacency;
    Square::all()
        .filter(|t| goal(*t))
        .map(|t| i64::from(adjacency.distance(sq, t)))
        .min()
        .unwrap_or(0)
}

/// The eager policy's taste in steps.
fn step_score(state: &State, order: &Order) -> i64 {
    let Order::Step { unit, from, to } = *order else {
        return 0;
    };
    let side = state.turn();
    let adjacency = state.rules().adjacency;
    match side {
        Side::Attacker => {
            if is_infantry(side, unit) {
                if is_victory(to) {
                    return 10_000;
                }
                if is_castle(to) && !is_castle(from) {
                    return match check_step(state, unit, from, to).map(|p| p.entry) {
                        Ok(Some(EntryCondition::Breach)) => 500,
                        Ok(Some(EntryCondition::Tower)) => 400,
                        _ => 60,
                    };
                }
                if is_castle(from) {
                    return 5
                        * (distance_to(state, from, is_victory)
                            - distance_to(state, to, is_victory));
                }
                let tower = state
                    .units_at(to)
                    .any(|u| u.side == Side::Attacker && u.kind == UnitKind::Tower);
                let bonus = if tower { 50 } else { 0 };
                bonus
                    + 10 * (distance_to(state, from, is_castle) - distance_to(state, to, is_castle))
            } else {
                // Engines close on the moat ring.
                let moat = |sq| is_moat(sq, adjacency);
                10 * (distance_to(state, from, moat) - distance_to(state, to, moat))
            }
        }
        Side::Defender => {
            // Meet the intruders.
            let intruders = |sq: Square| {
                state
                    .units_at(sq)
                    .filter(|u| u.side == Side::Attacker)
                    .count() as i64
            };
            100 * (intruders(to) - intruders(from))
        }
    }
}

/// Random breach attempts: each unit that can breach tries with even odds.
fn random_breaches(rng: &mut SplitMix64, state: &State, policy: Policy) -> Vec<Order> {
    let all = legal_breaches(state);
    let mut out = Vec::new();
    let side = state.turn();
    for u in state
        .units()
        .iter()
        .filter(|u| u.side == side && !u.acted && breach_profile(side, u.kind).is_some())
    {
        let mine: Vec<Order> = all
            .iter()
            .filter(|o| matches!(o, Order::Breach { unit, from, .. } if *unit == u.kind && *from == u.square))
            .copied()
            .collect();
        if (policy == Policy::Eager || rng.chance(1, 2))
            && let Some(o) = rng.pick(&mine)
        {
            out.push(*o);
        }
    }
    out
}

/// Attacks: every unit that can attack does, at a random target (eager:
/// intruders in the castle first, then the easiest kill).
fn random_attacks(rng: &mut SplitMix64, state: &State, policy: Policy) -> Vec<Order> {
    let all = legal_attacks(state);
    let mut out = Vec::new();
    let side = state.turn();
    for u in state
        .units()
        .iter()
        .filter(|u| u.side == side && !u.acted && can_attack(u.kind))
    {
        let mut mine: Vec<Order> = all
            .iter()
            .filter(|o| matches!(o, Order::Attack { unit, from, .. } if *unit == u.kind && *from == u.square))
            .copied()
            .collect();
        if policy == Policy::Eager {
            rng.shuffle(&mut mine);
            mine.sort_by_key(|o| std::cmp::Reverse(attack_score(state, o)));
            if let Some(o) = mine.first() {
                out.push(*o);
            }
        } else if let Some(o) = rng.pick(&mine) {
            out.push(*o);
        }
    }
    rng.shuffle(&mut out);
    out
}

/// The eager policy's taste in targets.
fn attack_score(state: &State, order: &Order) -> i64 {
    let Order::Attack {
        unit,
        from,
        victim,
        target,
    } = *order
    else {
        return 0;
    };
    let need = match check_attack(state, unit, from, victim, target) {
        Ok(p) => i64::from(p.need),
        Err(_) => return i64::MIN,
    };
    let intruder = state.turn() == Side::Defender && is_castle(target);
    let infantry = is_infantry(state.turn().opposite(), victim);
    (if intruder { 1000 } else { 0 }) + (if infantry { 10 } else { 0 }) - need
}

/// The driver's choices as a seed: SplitMix64 from the first 8 bytes of
/// `SHA-256(label || seed)`.
fn choices(label: &str, seed: u64) -> SplitMix64 {
    SplitMix64::new(u64::from_be_bytes(
        derive(label, seed)[..8].try_into().unwrap_or([0; 8]),
    ))
}

/// A setup for `side` as the driver chooses it from `seed`: a random
/// permutation of the side's army (CS-08). For harnesses that play the
/// driver's choices one step at a time (`yam hotseat auto`).
pub fn choose_setup(side: Side, seed: u64) -> Result<Setup, SetupError> {
    random_setup(&mut choices("yam/castle-siege/auto/setup", seed), side)
}

/// The next declaration of the side to move in `state`, as `policy` chooses
/// it from `seed`: in the Move phase a priority list of steps (a third of
/// the time with the breaches, the attacks and `End` after it, the whole
/// turn in one declaration), else the breaches and attacks of the rest of
/// the turn and `End`. Under the faithful turn (CS-P4) the next single
/// order instead: `Move`, a step, a breach, an attack or `End`. Never
/// empty; always legal when declared. For harnesses that play one
/// declaration at a time (`yam hotseat auto`, the robot, the desks), with
/// the dice coming from elsewhere.
pub fn choose_declaration(state: &State, policy: Policy, seed: u64) -> Declaration {
    let mut rng = choices("yam/castle-siege/auto/orders", seed);
    if state.rules().turn == TurnMode::Faithful {
        return Declaration::new(faithful_orders(&mut rng, state, policy));
    }
    let mut orders = Vec::new();
    match state.phase() {
        Phase::Move => {
            let steps = random_steps(&mut rng, state, policy);
            let whole_turn = rng.chance(1, 3);
            if !steps.is_empty() {
                orders.push(Order::Phase(Phase::Move));
                orders.extend(steps);
            }
            if whole_turn || orders.is_empty() {
                // Breaches and attacks as the position stands now: units
                // that move away are skipped (CS-P2).
                let breaches = random_breaches(&mut rng, state, policy);
                if !breaches.is_empty() {
                    orders.push(Order::Phase(Phase::Breach));
                    orders.extend(breaches);
                }
                orders.push(Order::Phase(Phase::Attack));
                orders.extend(random_attacks(&mut rng, state, policy));
                orders.push(Order::End);
            }
        }
        Phase::Breach => {
            let breaches = random_breaches(&mut rng, state, policy);
            if !breaches.is_empty() {
                orders.push(Order::Phase(Phase::Breach));
                orders.extend(breaches);
            }
            orders.push(Order::Phase(Phase::Attack));
            orders.extend(random_attacks(&mut rng, state, policy));
            orders.push(Order::End);
        }
        Phase::Attack => {
            orders.push(Order::Phase(Phase::Attack));
            orders.extend(random_attacks(&mut rng, state, policy));
            orders.push(Order::End);
        }
    }
    Declaration::new(orders)
}

/// CS-P4, the faithful turn: the next declaration, chosen with every die
/// before it known. `Move` alone to draw the allowance (always when eager,
/// three times in four at random); then one step at a time while the
/// allowance lasts and the policy wants one; then one breach at a time,
/// one attack at a time, and `End` when the policy wants no more. Each
/// breach and attack uses up its unit's action, so a turn ends.
fn faithful_orders(rng: &mut SplitMix64, state: &State, policy: Policy) -> Vec<Order> {
    let phase = state.phase();
    if phase == Phase::Move {
        match state.allowance() {
            None if policy == Policy::Eager || rng.chance(3, 4) => {
                return vec![Order::Phase(Phase::Move)];
            }
            Some(a) if a.left() > 0 => {
                if let Some(step) = random_steps(rng, state, policy).first() {
                    return vec![*step];
                }
            }
            _ => {}
        }
    }
    if phase <= Phase::Breach
        && let Some(breach) = random_breaches(rng, state, policy).first()
    {
        let marker = (phase < Phase::Breach).then_some(Order::Phase(Phase::Breach));
        return marker.into_iter().chain([*breach]).collect();
    }
    if let Some(attack) = random_attacks(rng, state, policy).first() {
        let marker = (phase < Phase::Attack).then_some(Order::Phase(Phase::Attack));
        return marker.into_iter().chain([*attack]).collect();
    }
    vec![Order::End]
}

/// Plays one game of random legal orders from `seed` under `ruleset`.
pub fn play_game(seed: u64, ruleset: &Ruleset) -> Result<GameSummary, SelfPlayError> {
    play_game_with(seed, ruleset, Policy::Random)
}

/// Plays one game from `seed` under `ruleset`, choosing orders by `policy`.
pub fn play_game_with(
    seed: u64,
    ruleset: &Ruleset,
    policy: Policy,
) -> Result<GameSummary, SelfPlayError> {
    let mut rng = SplitMix64::new(u64::from_be_bytes(
        derive("yam/castle-siege/selfplay/choices", seed)[..8]
            .try_into()
            .unwrap_or([0; 8]),
    ));
    let game = GameId::new(format!("castle-siege-selfplay-{seed}"))
        .map_err(|error| SelfPlayError::Value { seed, error })?;
    let open_seed = Blob::new(derive("yam/castle-siege/selfplay/dice", seed).to_vec())
        .map_err(|error| SelfPlayError::Value { seed, error })?;
    let mut dice = PracticeChance::new(&game, &open_seed);

    let setup_error = |error| SelfPlayError::Setup { seed, error };
    let defender = random_setup(&mut rng, Side::Defender).map_err(setup_error)?;
    let attacker = random_setup(&mut rng, Side::Attacker).map_err(setup_error)?;
    let mut state = State::new(ruleset.rules, &defender, &attacker).map_err(setup_error)?;
    let mut movetext = vec![
        Token::Sealed(Side::Defender),
        Token::Sealed(Side::Attacker),
        defender.token(),
        attacker.token(),
    ];

    let mut summary = GameSummary {
        seed,
        outcome: Outcome {
            winner: Side::Defender,
            reason: WinReason::Resignation,
        },
        rounds: 0,
        attackers_left: 0,
        defenders_left: 0,
        breaches: 0,
        declarations: 0,
        orders: 0,
        skipped: 0,
        dice: 0,
        movetext: Vec::new(),
    };
    // Every turn takes at most three declarations under CS-P1; under CS-P4
    // one for the allowance, six steps, a breach or attack for each of the
    // 28 units and `End`. The cap ends the game.
    let faithful = ruleset.rules.turn == TurnMode::Faithful;
    let per_turn = if faithful { 40 } else { 4 };
    let limit = per_turn * 2 * ruleset.rules.round_cap as usize + 4;
    // Whether this turn's Breach phase has had its declaration.
    let mut breach_declared = false;
    while state.outcome().is_none() {
        if summary.declarations > limit {
            return Err(SelfPlayError::NoEnd {
                seed,
                declarations: summary.declarations,
            });
        }
        let whole_turn = rng.chance(1, 3);
        let mut orders = Vec::new();
        match state.phase() {
            _ if faithful => orders = faithful_orders(&mut rng, &state, policy),
            Phase::Move => {
                let steps = random_steps(&mut rng, &state, policy);
                if !steps.is_empty() || rng.chance(1, 2) {
                    orders.push(Order::Phase(Phase::Move));
                    orders.extend(steps);
                }
                if whole_turn {
                    // Breaches and attacks as the position stands now: the
                    // units that move away are skipped (CS-P2).
                    let breaches = random_breaches(&mut rng, &state, policy);
                    if !breaches.is_empty() {
                        orders.push(Order::Phase(Phase::Breach));
                        orders.extend(breaches);
                    }
                    orders.push(Order::Phase(Phase::Attack));
                    orders.extend(random_attacks(&mut rng, &state, policy));
                    orders.push(Order::End);
                }
                if orders.is_empty() {
                    orders.push(Order::Phase(Phase::Breach));
                }
            }
            Phase::Breach if !breach_declared => {
                orders.push(Order::Phase(Phase::Breach));
                orders.extend(random_breaches(&mut rng, &state, policy));
                breach_declared = true;
            }
            Phase::Breach => {
                // Breach and attack declarations may come in any number
                // until the turn ends; this driver makes one of each.
                orders.push(Order::Phase(Phase::Attack));
                orders.extend(random_attacks(&mut rng, &state, policy));
                orders.push(Order::End);
            }
            Phase::Attack => {
                orders.push(Order::Phase(Phase::Attack));
                orders.extend(random_attacks(&mut rng, &state, policy));
                orders.push(Order::End);
            }
        }
        let declaration = Declaration::new(orders);
        let resolution = resolve(&state, &declaration, &mut dice).map_err(|e| match e {
            ResolveError::Refused(refusal) => SelfPlayError::Refused {
                seed,
                declaration: declaration.texts().join(" "),
                refusal,
            },
            ResolveError::Chance { error, .. } => SelfPlayError::Chance { seed, error },
        })?;
        // Each declaration's dice are its own evidence in a record.
        let _ = dice.take_records();
        summary.declarations += 1;
        summary.orders += resolution.report.len();
        summary.dice += resolution.dice();
        summary.skipped += resolution
            .report
            .iter()
            .filter(|o| matches!(o.mark, yam_notation::castle_siege::Mark::Skipped))
            .count();
        movetext.extend(resolution.tokens());
        if resolution.state.turn() != state.turn() {
            breach_declared = false;
        }
        state = resolution.state;
    }
    if let Some(outcome) = state.outcome() {
        summary.outcome = outcome;
    }
    summary.rounds = state.round();
    summary.attackers_left = state.count(Side::Attacker);
    summary.defenders_left = state.count(Side::Defender);
    summary.breaches = state.breaches().len();
    summary.movetext = movetext;
    Ok(summary)
}

/// Plays the games of `seeds` by `policy` and totals them.
pub fn play_games(
    seeds: impl IntoIterator<Item = u64>,
    ruleset: &Ruleset,
    policy: Policy,
) -> Result<Stats, SelfPlayError> {
    let mut stats = Stats::default();
    for seed in seeds {
        stats.add(&play_game_with(seed, ruleset, policy)?);
    }
    Ok(stats)
}
