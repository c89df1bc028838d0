//! Secret setups (CS-07 to CS-10): what a legal placement is, its canonical
//! bytes, and its commitment and reveal through the fair-play layer (which
//! supersedes CS-09).
//!
//! The canonical bytes of a setup are the UTF-8 bytes of its canonical
//! token, `Defender:CKAO/OACK/KCOA/AOKC` or
//! `Attacker:KKRTTRKK/AA/SS/CC/CC/SS/AA/KKRTTRKK` (see
//! `yam_notation::castle_siege`): short, readable by a person who checks a
//! commitment by hand, and one spelling per placement. A reveal must use
//! exactly that spelling; anything else is refused, so one commitment can
//! never open to two texts.

use yam_notation::castle_siege::{Placement, Token};
use yam_notation::grammar::TokenError;

use super::army::{Side, UnitKind, army, army_count, plural};
use super::board::Square;
use crate::fair_play::commit::{CommitMismatch, Commitment, Salt, SetupOpening};
use crate::fair_play::encoding::{Blob, ValueError};
use crate::fair_play::game_id::GameId;
use crate::fair_play::sign::PublicKey;
use serde::{Deserialize, Serialize};

/// Why a setup is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// The text is not a setup token.
    #[error("not a setup token: at byte {}, expected {}", .0.offset, .0.expected)]
    Syntax(TokenError),
    /// A sealed marker or an order where a revealed placement belongs.
    #[error("{0} is not a revealed placement")]
    NotAPlacement(String),
    /// The placement is the other side's.
    #[error("the placement is the {found}'s, but the {expected}'s was expected")]
    WrongSide {
        /// The side expected.
        expected: Side,
        /// The side written.
        found: Side,
    },
    /// CS-08: a unit type the side does not field.
    #[error("the {side} has no {} (it placed one on {square})", plural(*.kind))]
    NotInArmy {
        /// The side.
        side: Side,
        /// The type.
        kind: UnitKind,
        /// Where it was placed.
        square: Square,
    },
    /// CS-08: the placement is not a permutation of the side's army.
    #[error("the {side} places {found} {}, but its army has {expected} (CS-08)", plural(*.kind))]
    WrongCount {
        /// The side.
        side: Side,
        /// The type.
        kind: UnitKind,
        /// How many the army has.
        expected: usize,
        /// How many were placed.
        found: usize,
    },
    /// The revealed bytes are not the canonical spelling of a placement.
    #[error("the revealed setup is not in canonical form (expected {canonical:?})")]
    NotCanonical {
        /// The canonical spelling of what was read.
        canonical: String,
    },
    /// The revealed bytes are not text.
    #[error("the revealed setup is not UTF-8 text")]
    NotText,
    /// The opening does not match the commitment.
    #[error(transparent)]
    Commitment(#[from] CommitMismatch),
    /// The setup does not fit a fair-play blob (cannot happen for a setup).
    #[error(transparent)]
    Value(#[from] ValueError),
    /// Two setups of the same side given to start a game.
    #[error("a game needs one Defender setup and one Attacker setup")]
    SidesMixed,
}

/// A legal setup: a placement of exactly the side's army, one unit per setup
/// square (CS-02, CS-08).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Setup {
    placement: Placement,
}

impl Setup {
    /// Checks a placement (CS-08): every unit of the side's army, each on its
    /// own setup square, and nothing else.
    pub fn new(placement: Placement) -> Result<Setup, SetupError> {
        let side = placement.side();
        let mut counts = [0usize; UnitKind::ALL.len()];
        for (square, kind) in placement.squares() {
            if army_count(side, kind) == 0 {
                return Err(SetupError::NotInArmy { side, kind, square });
            }
            counts[kind.index()] += 1;
        }
        for &(kind, n) in army(side) {
            let found = counts[kind.index()];
            if found != usize::from(n) {
                return Err(SetupError::WrongCount {
                    side,
                    kind,
                    expected: usize::from(n),
                    found,
                });
            }
        }
        Ok(Setup { placement })
    }

    /// Reads a setup token (`Defender:CKAO/...`), leniently as tokens are
    /// read, and checks it.
    pub fn parse(text: &str) -> Result<Setup, SetupError> {
        match Token::parse(text).map_err(SetupError::Syntax)? {
            Token::Setup(p) => Setup::new(p),
            other => Err(SetupError::NotAPlacement(other.to_string())),
        }
    }

    /// Whose setup.
    pub fn side(&self) -> Side {
        self.placement.side()
    }

    /// The placement.
    pub fn placement(&self) -> &Placement {
        &self.placement
    }

    /// Each setup square with its unit.
    pub fn squares(&self) -> impl Iterator<Item = (Square, UnitKind)> + '_ {
        self.placement.squares()
    }

    /// The token, for the record.
    pub fn token(&self) -> Token {
        Token::Setup(self.placement.clone())
    }

    /// The canonical bytes that are committed to: the canonical token text.
    pub fn canonical_bytes(&self) -> Vec<u8> {
        self.placement.to_string().into_bytes()
    }

    /// Reads canonical bytes back, refusing any other spelling and any
    /// placement of the wrong side.
    pub fn from_canonical_bytes(side: Side, bytes: &[u8]) -> Result<Setup, SetupError> {
        let text = std::str::from_utf8(bytes).map_err(|_| SetupError::NotText)?;
        let setup = Setup::parse(text)?;
        if setup.side() != side {
            return Err(SetupError::WrongSide {
                expected: side,
                found: setup.side(),
            });
        }
        let canonical = setup.placement.to_string();
        if canonical != text {
            return Err(SetupError::NotCanonical { canonical });
        }
        Ok(setup)
    }

    /// The opening of a commitment to this setup with `salt` (32 bytes the
    /// player draws from its own randomness).
    pub fn opening(&self, salt: Salt) -> Result<SetupOpening, SetupError> {
        Ok(SetupOpening {
            salt,
            setup: Blob::new(self.canonical_bytes())?,
        })
    }

    /// The commitment `player` publishes in `game` before any setup is
    /// revealed (CS-07), with its opening, to be published after both
    /// commitments are in.
    pub fn commit(
        &self,
        game: &GameId,
        player: &PublicKey,
        salt: Salt,
    ) -> Result<(Commitment, SetupOpening), SetupError> {
        let opening = self.opening(salt)?;
        Ok((Commitment::new(game, player, &opening), opening))
    }

    /// Checks a revealed `opening` against `player`'s `commitment` and reads
    /// the `side`'s setup from it.
    pub fn reveal(
        side: Side,
        game: &GameId,
        player: &PublicKey,
        commitment: &Commitment,
        opening: &SetupOpening,
    ) -> Result<Setup, SetupError> {
        commitment.check(game, player, opening)?;
        Setup::from_canonical_bytes(side, opening.setup.as_bytes())
    }
}
