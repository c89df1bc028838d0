//! Genghis Khan, the solo card game: conquer five Foe decks with the Khan
//! deck in 21 turns. `docs/rules/genghis-khan.md` states the rules in the
//! project's words; the ids in comments (GK-05, GK-12, ...) are the rulings
//! of `shared/rules/castle-siege-and-genghis-khan.md`, each next to the code
//! that implements it. GK-24 (seeded shuffles) is superseded by the
//! fair-play layer: every card comes through the door for chance
//! ([`crate::fair_play::chance::Chance`]) as an index into the cards that
//! remain, so no seed or deck order exists in advance.
//!
//! One job per module:
//! - [`cards`]: the decks as data and their canonical orders;
//! - [`ruleset`]: the ruling flags and limits, read from YAML;
//! - [`state`]: turn, phase, deck, hand, piles and rows;
//! - [`action`]: actions, events, and why an action is refused;
//! - [`apply`](mod@apply): setup, the Horde, Conquest and Logistics phases;
//! - [`score`]: the score and the best score still possible;
//! - [`token`]: written moves to actions and back;
//! - [`tableau`](mod@tableau): the text display;
//! - [`greedy`]: a greedy player, for figures and tests;
//! - [`input`]: moves as a player types them (`pay:10b+9e`), completed;
//! - [`deal`]: a game dealt from physical cards, its deal recorded in the
//!   header (`FoeLayout`, `KhanDeck`), replayed without any chance;
//! - [`game_replay`]: the game behind the fair-play layer's `GameReplay`
//!   door: the layout and each draw by a roll of its own.
//!
//! ```
//! use yam_referee::fair_play::{chance::PracticeChance, encoding::Blob, game_id::GameId};
//! use yam_referee::genghis_khan::{Action, FoeDeck, Phase, Ruleset, apply, setup};
//! let mut chance = PracticeChance::new(
//!     &GameId::new("practice-1").unwrap(),
//!     &Blob::new(b"open seed".to_vec()).unwrap(),
//! );
//! let mut state = setup(&Ruleset::standard(), &mut chance).unwrap();
//! for _ in 0..5 {
//!     state = apply(&state, &Action::Draw, &mut chance).unwrap().0;
//! }
//! assert_eq!(state.hand().len(), 5);
//! assert_eq!(state.phase(), Phase::Conquest { target: None });
//! let refused = apply(&state, &Action::Attack(FoeDeck::Russia), &mut chance).unwrap_err();
//! assert!(refused.to_string().contains("GK-12"));
//! ```

pub mod action;
pub mod apply;
pub mod cards;
pub mod deal;
pub mod game_replay;
pub mod greedy;
pub mod input;
pub mod ruleset;
pub mod score;
pub mod state;
pub mod tableau;
pub mod token;

pub use action::{Action, Event, Illegal};
pub use apply::{
    apply, attackable, check, draws_due, horde_purpose, layout_purpose, legal_actions, setup,
};
pub use cards::{FoeCard, FoeDeck, KhanCard, NameError, foe_deck, khan_deck};
pub use deal::{Deal, DealtDraws, play_dealt};
pub use greedy::{GreedyGame, Summary, greedy_action, play_greedy, practice, summarize};
pub use ruleset::{Options, Ruleset};
pub use score::{Score, best_possible};
pub use state::{EndReason, HORDE, Phase, State};
pub use tableau::tableau;
pub use token::{notate, play, resolve};
pub use yam_notation::genghis_khan::{GenghisKhanGrammar, Move};

#[cfg(test)]
mod tests;
