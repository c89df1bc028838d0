//! Playing a move: checking it against the rules with a reason in words when
//! it is refused, and carrying out its consequences in the order KR-P11 fixes.

use std::fmt;

use super::movegen::{reach, reaches};
use super::moves::{Action, Move};
use super::outcome::Outcome;
use super::piece::{
    Captive, Kind, Piece, Side, base_promoted, capture_promoted, demoted, exchange_gives,
    exchange_receives, is_khan_type, is_magician, movement_words, with_article,
};
use super::position::{CAPTIVES, CaptiveAt, Position};
use super::square::{Bitboard, REACH, Square};

/// Something a move did, beyond moving its piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Event {
    /// A piece was captured.
    Captured {
        /// The piece taken.
        piece: Piece,
        /// Where.
        square: Square,
    },
    /// A spell demoted a piece (KR-4.2).
    Demoted {
        /// Where it stands.
        square: Square,
        /// What it was.
        from: Kind,
        /// What it is now.
        to: Kind,
    },
    /// A spell silenced a manned tower square (KR-7.2).
    Silenced {
        /// The tower square.
        square: Square,
    },
    /// An exchange (KR-5.3): the receiver went up, the giver down.
    Exchanged {
        /// The receiver's square.
        receiver: Square,
        /// What the receiver became.
        received: Kind,
        /// The giver's square.
        giver: Square,
        /// What the giver became.
        gave: Kind,
    },
    /// A captive passed to a neighbour (KR-7.5).
    Transferred {
        /// Which captive.
        captive: Captive,
        /// From the carrier on this square.
        from: Square,
        /// To the piece on this square.
        to: Square,
    },
    /// The capturer took over the captive the captured piece carried (KR-7.6).
    TookOver {
        /// Which captive.
        captive: Captive,
        /// Where the capturer now stands.
        square: Square,
    },
    /// A captive died (KR-7.6, KR-7.1).
    CaptiveDied {
        /// Which captive.
        captive: Captive,
        /// Where.
        square: Square,
    },
    /// A piece walked into a manned tower square and died there (KR-7.1).
    DiedInTower {
        /// The piece.
        piece: Piece,
        /// The tower square.
        square: Square,
    },
    /// A piece picked up a tower's captive (KR-7.3).
    PickedUp {
        /// Which captive.
        captive: Captive,
        /// The silenced tower square the piece stands on.
        square: Square,
    },
    /// A khan was dropped off at its ger (KR-7.7).
    DroppedOff {
        /// Which khan.
        captive: Captive,
        /// The ger.
        ger: Square,
    },
    /// A dropped-off khan appeared on its now empty ger (KR-7.7, KR-P12).
    Released {
        /// Which khan.
        captive: Captive,
        /// The ger, where it now stands.
        square: Square,
    },
    /// The general was delivered to a ger of his carrier's side (KR-9).
    Delivered {
        /// Who delivered him.
        side: Side,
        /// The ger.
        ger: Square,
    },
    /// The moving piece was promoted (KR-5.1, KR-5.2).
    Promoted {
        /// Where it stands.
        square: Square,
        /// What it was.
        from: Kind,
        /// What it is now.
        to: Kind,
    },
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Event::Captured { piece, square } => write!(f, "the {piece} on {square} is captured"),
            Event::Demoted { square, from, to } => {
                write!(
                    f,
                    "the {from} on {square} is demoted to {}",
                    with_article(to)
                )
            }
            Event::Silenced { square } => write!(f, "the tower archers on {square} are silenced"),
            Event::Exchanged {
                receiver,
                received,
                giver,
                gave,
            } => write!(
                f,
                "exchange: {receiver} becomes {}, {giver} becomes {}",
                with_article(received),
                with_article(gave)
            ),
            Event::Transferred { captive, from, to } => {
                write!(f, "{captive} passes from {from} to {to}")
            }
            Event::TookOver { captive, square } => {
                write!(f, "the piece on {square} takes over {captive}")
            }
            Event::CaptiveDied { captive, square } => write!(f, "{captive} dies on {square}"),
            Event::DiedInTower { piece, square } => {
                write!(f, "the {piece} dies in the manned tower square {square}")
            }
            Event::PickedUp { captive, square } => {
                write!(f, "the piece on {square} picks up {captive}")
            }
            Event::DroppedOff { captive, ger } => write!(f, "{captive} is dropped off at {ger}"),
            Event::Released { captive, square } => write!(f, "{captive} appears on {square}"),
            Event::Delivered { side, ger } => write!(f, "{side} delivers the general at {ger}"),
            Event::Promoted { square, from, to } => {
                write!(
                    f,
                    "the {from} on {square} is promoted to {}",
                    with_article(to)
                )
            }
        }
    }
}

/// Where a move's [`Event`]s go. [`NoEvents`] drops them (the move generator's
/// copy-make), a `Vec<Event>` keeps them.
pub trait EventSink {
    /// Record one event.
    fn event(&mut self, e: Event);
}

/// Drops every event.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoEvents;

impl EventSink for NoEvents {
    #[inline(always)]
    fn event(&mut self, _: Event) {}
}

impl EventSink for Vec<Event> {
    fn event(&mut self, e: Event) {
        self.push(e);
    }
}

/// Why a move is illegal, in words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Illegal {
    /// No move is legal after the end of the game.
    #[error("the game is over: {0}")]
    GameOver(Outcome),
    /// Nothing stands on the from-square.
    #[error("there is no piece on {0}")]
    NoPiece(Square),
    /// The from-square holds the other side's piece.
    #[error("the {piece} on {square} is not {turn}'s, and it is {turn}'s move")]
    NotYourPiece {
        /// Its square.
        square: Square,
        /// The piece.
        piece: Piece,
        /// Whose move it is.
        turn: Side,
    },
    /// The token names another kind than the one on the square.
    #[error("the piece on {square} is {}, not {}", with_article(*.actual), with_article(*.written))]
    WrongPiece {
        /// The from-square.
        square: Square,
        /// The kind the token names.
        written: Kind,
        /// The kind there.
        actual: Kind,
    },
    /// The target is outside the piece's movement (KR-3).
    #[error("the {piece} on {from} cannot reach {to}: {how}")]
    CannotReach {
        /// The piece.
        piece: Piece,
        /// From.
        from: Square,
        /// To.
        to: Square,
        /// How it does move.
        how: &'static str,
    },
    /// Every path to the target is blocked (KR-3, KR-7.1).
    #[error("the {piece} on {from} cannot reach {to}: every way there is blocked")]
    Blocked {
        /// The piece.
        piece: Piece,
        /// From.
        from: Square,
        /// To.
        to: Square,
    },
    /// A plain move onto an enemy piece (KR-3.9).
    #[error("there is a {occupant} on {to}: a move onto an enemy piece is a capture, written x")]
    OccupiedByEnemy {
        /// The target.
        to: Square,
        /// Who stands there.
        occupant: Piece,
    },
    /// A move or capture onto a friendly piece (KR-3.9).
    #[error(
        "the {occupant} on {to} is on the mover's side; only an exchange (<>) or a transfer (>) acts on a friendly piece"
    )]
    OwnPieceThere {
        /// The target.
        to: Square,
        /// Who stands there.
        occupant: Piece,
    },
    /// A capture onto an empty square.
    #[error("there is nothing to capture on {0}")]
    NothingToCapture(Square),
    /// KR-3.10 with `swordsCaptureMounts` off.
    #[error("{} may not capture a mounted {victim} (swordsCaptureMounts is off)", with_article(*.capturer))]
    SwordAgainstMount {
        /// The would-be capturer.
        capturer: Kind,
        /// The mounted piece.
        victim: Kind,
    },
    /// A spell from a piece that casts none (KR-4.1).
    #[error("the {piece} on {from} is not a magician and casts no spells")]
    NotACaster {
        /// The piece.
        piece: Piece,
        /// Its square.
        from: Square,
    },
    /// A spell beyond the caster's range (KR-4.1).
    #[error(
        "the {piece} on {from} casts spells at most {range} {} away (king distance); {to} is {distance} away",
        if *.range == 1 { "square" } else { "squares" }
    )]
    SpellOutOfRange {
        /// The caster.
        piece: Piece,
        /// Its square.
        from: Square,
        /// The target.
        to: Square,
        /// Its range.
        range: u8,
        /// The target's king distance.
        distance: u8,
    },
    /// A spell at nothing (KR-4.1, KR-7.2).
    #[error(
        "a spell at {0} has no target: spells are cast at enemy pieces and at empty manned tower squares"
    )]
    NoSpellTarget(Square),
    /// A spell at one's own piece.
    #[error("a spell cannot be cast at the mover's own {piece} on {to}")]
    SpellAtOwnPiece {
        /// The target.
        to: Square,
        /// The piece there.
        piece: Piece,
    },
    /// KR-4.2: S, I, G and F cannot be demoted.
    #[error("the {piece} on {to} cannot be demoted")]
    CannotBeDemoted {
        /// The target.
        to: Square,
        /// The piece there.
        piece: Piece,
    },
    /// KR-4.3 with `magicianDemotesKhan` off.
    #[error("spells may not target the {piece} on {to} (magicianDemotesKhan is off)")]
    KhanSpellsOff {
        /// The target.
        to: Square,
        /// The piece there.
        piece: Piece,
    },
    /// KR-5.3 with `exchanges` off.
    #[error("exchanges are off in this ruleset")]
    ExchangesOff,
    /// KR-5.3, KR-P9: the receiver cannot go up.
    #[error(
        "the {piece} on {from} cannot receive in an exchange: only a khan archer, khan sword, magician or demoted magician can"
    )]
    CannotReceive {
        /// The would-be receiver.
        piece: Piece,
        /// Its square.
        from: Square,
    },
    /// Exchanges and transfers are between neighbours.
    #[error("{to} is not next to {from}")]
    NotNeighbours {
        /// The acting piece's square.
        from: Square,
        /// The other square.
        to: Square,
    },
    /// No friendly piece to exchange with.
    #[error("there is no friendly piece on {0} to exchange with")]
    NoExchangePartner(Square),
    /// KR-5.3: only F, W and A give.
    #[error(
        "the {piece} on {to} cannot give in an exchange: only a bondsman, warrior or archer can"
    )]
    CannotGive {
        /// The would-be giver's square.
        to: Square,
        /// The piece there.
        piece: Piece,
    },
    /// A transfer from a piece that carries nothing (KR-7.5).
    #[error("the {piece} on {from} carries no captive")]
    NotCarrying {
        /// The piece.
        piece: Piece,
        /// Its square.
        from: Square,
    },
    /// No friendly piece to take the captive.
    #[error("there is no friendly piece on {0} to take the captive")]
    NoTransferPartner(Square),
    /// KR-7.4: one captive a piece.
    #[error("the {piece} on {to} already carries a captive")]
    ReceiverCarries {
        /// The receiver's square.
        to: Square,
        /// The piece there.
        piece: Piece,
    },
    /// KR-6.2, KR-P6: the move leaves the mover's royal leader attacked.
    #[error(
        "this move leaves the royal {leader} on {square} attacked by the {attacker} on {attacker_square}"
    )]
    LeavesRoyalAttacked {
        /// The royal leader's kind.
        leader: Kind,
        /// Its square after the move.
        square: Square,
        /// An attacker.
        attacker: Piece,
        /// The attacker's square.
        attacker_square: Square,
    },
    /// The token leaves out a promotion the move makes (KR-N).
    #[error("this move promotes the {piece} to {}: write ={}", with_article(*.becomes), .becomes.letter())]
    PromotionMissing {
        /// The mover.
        piece: Kind,
        /// What it becomes.
        becomes: Kind,
    },
    /// The token writes a promotion the move does not make.
    #[error("this move promotes nothing; remove ={}", written.letter())]
    PromotionNotDue {
        /// What the token wrote.
        written: Kind,
    },
    /// The token writes the wrong promotion.
    #[error("this move promotes the {piece} to {}, not to {}", with_article(*.becomes), with_article(*.written))]
    PromotionWrong {
        /// The mover.
        piece: Kind,
        /// What it becomes.
        becomes: Kind,
        /// What the token wrote.
        written: Kind,
    },
}

/// A move carried out: the new position and what happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The position after the move.
    pub position: Position,
    /// What the move did, in order.
    pub events: Vec<Event>,
}

/// Check `mv` against every rule and, if it is legal, play it.
pub fn apply(pos: &Position, mv: &Move) -> Result<Applied, Illegal> {
    pos.check(mv)?;
    let mut position = *pos;
    let mut events = Vec::new();
    position.play(mv, &mut events);
    Ok(Applied { position, events })
}

/// A plain move, capture or spell the replay's fast path decided legal and
/// played (see `Position::plain_move` and `Position::plain_spell`): what it
/// did, and the counters before it, so that `Position::unplay_plain` can
/// take it back exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlainMove {
    from: Square,
    to: Square,
    /// The piece as it stood on `from`.
    mover: Piece,
    /// What it is on `to` (promoted or not).
    kind: Kind,
    /// What it took.
    victim: Option<Piece>,
    /// The slot of the captive it carried along (see `captive_slot`).
    carried: Option<u8>,
    /// Whether it died on `to`, a manned tower square (KR-7.1).
    dies: bool,
    /// Whether it was a spell (KR-4): then `mover` cast it and stays on
    /// `from`, `victim` is the piece it demoted (`kind` what that piece
    /// becomes) or `None` for the manned square it silenced.
    spell: bool,
    halfmoves: u32,
    fullmoves: u32,
}

impl PlainMove {
    /// What the move promoted its piece to, if anything.
    pub fn promotion(&self) -> Option<Kind> {
        (!self.spell && self.kind != self.mover.kind).then_some(self.kind)
    }

    /// What [`Position::unplay_plain`] needs of this move once played.
    #[inline(always)]
    pub(crate) fn take_back(&self) -> TakeBack {
        TakeBack {
            from: self.from,
            to: self.to,
            mover: self.mover,
            victim: self.victim,
            spell: self.spell,
            halfmoves: self.halfmoves,
            fullmoves: self.fullmoves,
        }
    }
}

/// A played [`PlainMove`] as the checker keeps it, to take it back if a
/// variation starts on it: written once a move, so only what the position
/// after the move does not tell. Not the promoted kind (the take-back puts
/// back the mover as it was), nor the captive carried along: the fast path
/// declines a move onto a square a captive is carried on, so after it a
/// captive carried on `to` is the one carried from `from`. Nor whether the
/// mover died on `to` (KR-7.1): `to` is then empty, and the take-back
/// finds nothing there to remove. A spell's `victim` is the piece as it
/// was before the spell demoted it, or `None` for a silenced square.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TakeBack {
    from: Square,
    to: Square,
    mover: Piece,
    victim: Option<Piece>,
    spell: bool,
    halfmoves: u32,
    fullmoves: u32,
}

impl Position {
    /// Play a move known to be legal (from [`super::legal_moves`]), without
    /// checking it and without recording events. The fast path for replay and
    /// perft; an illegal move gives an unspecified (but valid-memory) position.
    pub fn play_unchecked(&mut self, mv: &Move) {
        self.play(mv, &mut NoEvents);
    }

    /// Whether `mv` is legal here, and if not, why. After checkmate or
    /// stalemate every move is refused as [`Illegal::GameOver`].
    pub fn check(&self, mv: &Move) -> Result<(), Illegal> {
        self.check_rules_into(mv, None)
            .map(|_| ())
            .map_err(|e| self.refusal(e))
    }

    /// [`Position::check`], leaving the position after the move in `next`
    /// (unspecified if the move is refused): one play of the move, where the
    /// royal test has already played it.
    #[cfg(test)]
    pub(crate) fn check_and_play(&self, mv: &Move, next: &mut Position) -> Result<(), Illegal> {
        if self.play_plain(mv, next) {
            return Ok(());
        }
        self.check_and_play_general(mv, next)
    }

    /// [`Position::check`], leaving the position after the move in `next`
    /// (unspecified if the move is refused), without trying the fast path
    /// ([`Position::plain_move`]): for a caller that already tried it (it
    /// only ever agrees with this).
    pub(crate) fn check_and_play_general(
        &self,
        mv: &Move,
        next: &mut Position,
    ) -> Result<(), Illegal> {
        match self.check_rules_into(mv, Some(next)) {
            Ok(true) => Ok(()),
            Ok(false) => {
                *next = *self;
                next.play(mv, &mut NoEvents);
                Ok(())
            }
            Err(e) => Err(self.refusal(e)),
        }
    }

    /// The fast path played into `next`: `true` when it decided the move
    /// legal (`next` is then the position after it).
    #[cfg(test)]
    pub(crate) fn play_plain(&self, mv: &Move, next: &mut Position) -> bool {
        self.play_plain_promoting(mv, next).is_some()
    }

    /// The fast path ([`Position::plain_move`], the move played into `next`,
    /// then [`Position::royal_attacker`] there), with what the move promotes
    /// its piece to (as [`Position::promotion_of`]): `Some` when it decided
    /// the move legal and played it.
    #[inline]
    pub(crate) fn play_plain_promoting(
        &self,
        mv: &Move,
        next: &mut Position,
    ) -> Option<Option<Kind>> {
        if mv.action == Action::Spell {
            return self.play_plain_spell(mv, next);
        }
        let plain = self.plain_move(mv)?;
        *next = *self;
        next.write_plain(&plain);
        if next.royal_attacker(self.turn).is_some() {
            return None;
        }
        Some(plain.promotion())
    }

    /// [`Position::play_plain_promoting`]'s spell, out of line: kept apart,
    /// the moves' path keeps its [`PlainMove`] in registers.
    #[cold]
    #[inline(never)]
    fn play_plain_spell(&self, mv: &Move, next: &mut Position) -> Option<Option<Kind>> {
        let plain = self.plain_spell(mv)?;
        *next = *self;
        next.write_plain(&plain);
        Some(None)
    }

    /// The fast path's answer for any move: [`Position::plain_move`] and
    /// its royal test, or [`Position::plain_spell`] for a spell.
    #[cfg(test)]
    pub(crate) fn plain_action(&self, mv: &Move) -> Option<PlainMove> {
        if mv.action == Action::Spell {
            self.plain_spell(mv)
        } else {
            self.plain_move_with_royal_test(mv)
        }
    }

    /// Take back the plain move `plain` (its [`PlainMove::take_back`]) that
    /// [`Position::write_plain`] played here last: the position is then exactly the one before it.
    pub(crate) fn unplay_plain(&mut self, plain: &TakeBack) {
        if plain.spell {
            match plain.victim {
                Some(before) => self.put(plain.to, before),
                None => self.manned = self.manned.with(plain.to),
            }
        } else {
            self.remove(plain.to);
            self.place(plain.from, plain.mover);
            if let Some(victim) = plain.victim {
                self.place(plain.to, victim);
            }
            // See `TakeBack`: only the captive carried along is carried on `to`.
            for at in &mut self.captives {
                if *at == Some(CaptiveAt::Carried(plain.to)) {
                    *at = Some(CaptiveAt::Carried(plain.from));
                }
            }
            self.captives_moved();
        }
        self.halfmoves = plain.halfmoves;
        self.fullmoves = plain.fullmoves;
        self.turn = plain.mover.side;
    }

    /// The replay's fast path: a plain move or capture whose only
    /// consequences are the move itself, the capture, a promotion, the
    /// captive its piece carries along (onto any square but a ger it would
    /// drop it off on; onto a tower square only where it does not pick one
    /// up), and the mover's death on a manned tower square when that is
    /// all (KR-7.1: carrying nothing). If
    /// this decides the move is legal, the answer is what the move does
    /// ([`Position::write_plain`] plays it). `None` leaves the general path
    /// to decide (every refusal, with its reason, and every
    /// move with other siege consequences: a carrier's tower death, KR-7.3
    /// pickup, KR-7.6 carrier capture, KR-7.7 drop-off and
    /// release, KR-9 delivery), and the endings of KR-P14. Spells have
    /// their own fast path ([`Position::plain_spell`]), exchanges and
    /// transfers none.
    ///
    /// Everything but the royal-leader test (KR-6.2, KR-P6), which is asked
    /// of the position with the move played ([`Position::royal_attacker`]):
    /// the replay plays the move in place, asks, and takes the move back in
    /// the rare case it is refused (`token::resolve_plain_in_place`). Asked
    /// after the move, the test needs no board of its own; asked before, as
    /// until the seventeenth step of issue #22, it needed the enemy pieces
    /// and the open squares as they would be, and the values kept for it
    /// through the test cost the fast path spills to the stack. A test holds
    /// the fast path to the general one over every conceivable move of
    /// random positions.
    #[inline(always)]
    pub(crate) fn plain_move(&self, mv: &Move) -> Option<PlainMove> {
        let (from, to) = (mv.from, mv.to);
        let us = self.turn;
        let leaders = self.leaders_by_side();
        if !matches!(mv.action, Action::Move | Action::Capture) || self.may_be_over(&leaders) {
            return None;
        }
        let piece = self.squares[from.index()]?;
        if piece.side != us {
            return None;
        }
        let victim = self.squares[to.index()];
        match (mv.action, victim) {
            (Action::Move, None) => {}
            (Action::Capture, Some(v)) if v.side != us && self.may_capture(piece.kind, v.kind) => {}
            _ => return None,
        }
        // KR-P11's siege consequences, which the fast path leaves to the
        // general one: the carrier-capture rules (a captive carried on `to`,
        // KR-7.6), a release (a khan waiting on `from`, or on an empty ger:
        // KR-7.7, KR-P12), drop-off or delivery at a ger (KR-7.7, KR-P13),
        // tower death (KR-7.1) and pickup (KR-7.3). A captive carried from
        // `from` otherwise just moves along with its carrier (KR-7.4).
        // One test of the kept boards, not a scan of the captives.
        let leaves_to_general = (self.carried & Bitboard::from_square(to))
            | (self.waiting & Bitboard::from_square(from))
            | self.released_gers();
        if !leaves_to_general.is_empty() {
            return None;
        }
        let carrier = self.carried.contains(from);
        let carried = if carrier {
            Some(self.carried_along(from, to)?)
        } else {
            None
        };
        // KR-7.1: onto a manned square a non-magician dies; the fast path
        // takes that too, when it has no other consequence.
        let dies =
            self.tower_squares().contains(to) && self.plain_onto_tower(piece.kind, to, carrier)?;
        let power = self.rules.options.power_magician_moves;
        if !reaches(from, to, piece.kind, self.open(), power) {
            return None;
        }
        // KR-5.2 then KR-5.1 (KR-P8), as in `play_move`; a piece that dies
        // on the way is not promoted.
        let mut kind = piece.kind;
        if self.rules.options.capture_promotions
            && let Some(v) = victim
        {
            kind = capture_promoted(kind, v.kind);
        }
        if self.rules.options.base_promotions && self.rules.camps[us.index()].contains(to) {
            kind = base_promoted(kind);
        }
        if dies {
            kind = piece.kind;
        }
        Some(PlainMove {
            from,
            to,
            mover: piece,
            kind,
            victim,
            carried,
            dies,
            spell: false,
            halfmoves: self.halfmoves,
            fullmoves: self.fullmoves,
        })
    }

    /// [`Position::plain_move`] with its royal test (KR-6.2), as the fast
    /// path asks it ([`Position::play_plain_promoting`], on a copy).
    #[cfg(test)]
    pub(crate) fn plain_move_with_royal_test(&self, mv: &Move) -> Option<PlainMove> {
        let mut after = *self;
        self.play_plain_promoting(mv, &mut after)?;
        self.plain_move(mv)
    }

    /// Each side's leaders before a move on the fast path: asked for KR-6.3
    /// ([`Position::may_be_over`]), and by the spell for KR-6.2 (a move's
    /// royal test asks the leaders after it).
    #[inline(always)]
    fn leaders_by_side(&self) -> [Bitboard; 2] {
        let all_leaders = self.all_leaders();
        [all_leaders & self.by_side[0], all_leaders & self.by_side[1]]
    }

    /// Whether the game may be over here (KR-P14: the general delivered, a
    /// hundred plies without a capture, a side without a leader), which the
    /// fast path leaves to the general one. `leaders` are
    /// [`Position::leaders_by_side`]; `leaderless` is asked only of a side
    /// that has none.
    #[inline(always)]
    fn may_be_over(&self, leaders: &[Bitboard; 2]) -> bool {
        self.delivered.is_some()
            || self.halfmoves >= 100
            || (leaders[0].is_empty() && self.leaderless(Side::White))
            || (leaders[1].is_empty() && self.leaderless(Side::Black))
    }

    /// The fast path's spell (KR-4), as [`Position::plain_move`] is its
    /// move: the caster on `mv.from` demotes the enemy piece on `mv.to`
    /// (KR-4.2, KR-4.3) or silences the empty manned square there (KR-7.2,
    /// KR-P2), within its range (KR-4.1, KR-P3), and that is
    /// all: nothing moves, and no khan waits at an empty ger to be released
    /// (KR-7.7), and the game is not over (KR-P14). The royal test (KR-6.2)
    /// without playing the spell: the caster's leaders stay where and what
    /// they are, and a spell changes one square, `to`; a square outside the
    /// royal leader's [`REACH`] is on no path of an attack on it, so there
    /// the leader is attacked after the spell exactly when it is before.
    /// A spell on a square within that reach is left to the general path.
    /// Out of line: spells are few.
    #[cold]
    #[inline(never)]
    pub(crate) fn plain_spell(&self, mv: &Move) -> Option<PlainMove> {
        let (from, to) = (mv.from, mv.to);
        let us = self.turn;
        let leaders = self.leaders_by_side();
        if mv.action != Action::Spell || self.may_be_over(&leaders) {
            return None;
        }
        let leaders = leaders[us.index()];
        let caster = self.squares[from.index()]?;
        if caster.side != us {
            return None;
        }
        // A silencing changes no piece: its `kind` is left the caster's.
        let kind = self
            .spell_effect(caster, from, to)
            .ok()?
            .unwrap_or(caster.kind);
        let target = self.squares[to.index()];
        if !self.released_gers().is_empty() {
            return None;
        }
        if let Some(royal) = leaders.single() {
            if REACH[royal.index()].contains(to) {
                return None;
            }
            if !self.attackers(royal, us.opposite()).is_empty() {
                return None;
            }
        }
        Some(PlainMove {
            from,
            to,
            mover: caster,
            kind,
            victim: target,
            carried: None,
            dies: false,
            spell: true,
            halfmoves: self.halfmoves,
            fullmoves: self.fullmoves,
        })
    }

    /// For the fast path, the slot of the captive the carrier on `from`
    /// carries along to `to`: `None` if it would drop it off or deliver it
    /// there (KR-7.7, KR-P13). Out of line: most moves carry nothing.
    #[cold]
    #[inline(never)]
    fn carried_along(&self, from: Square, to: Square) -> Option<u8> {
        let slot = self
            .captives
            .iter()
            .position(|at| *at == Some(CaptiveAt::Carried(from)))?;
        let ger = match CAPTIVES[slot] {
            Captive::Khan(side) => self.gers[side.index()],
            Captive::General => self.gers[self.turn.index()],
        };
        (!ger.contains(to)).then_some(slot as u8)
    }

    /// For the fast path, what becomes of a `kind` (carrying a captive or
    /// not) that ends its move on the tower square `to`:
    /// `Some(false)` when it stands there with no siege consequence,
    /// `Some(true)` when it dies there and that is all (KR-7.1: only a
    /// magician survives a manned square), `None` for the general path.
    /// The general path keeps the deaths with more to them: a carrier's
    /// captive dies with it (KR-7.1), and the square it leaves empty could
    /// release a khan waiting there (KR-7.7). A piece that survives must pick nothing
    /// up (KR-7.3: not a silenced square of a tower still holding its
    /// captive, unless it already carries one). Out of line: most moves end
    /// off the towers.
    #[cold]
    #[inline(never)]
    fn plain_onto_tower(&self, kind: Kind, to: Square, carrying: bool) -> Option<bool> {
        if self.manned.contains(to) {
            if is_magician(kind) {
                return Some(false);
            }
            let releases = self.waiting.contains(to);
            return (!carrying && !releases).then_some(true);
        }
        let picks_up = !carrying
            && self.captives.iter().any(|at| {
                matches!(at, Some(CaptiveAt::Tower(t)) if self.towers[usize::from(*t)].contains(to))
            });
        (!picks_up).then_some(false)
    }

    /// Play a plain move [`Position::plain_move`] decided: the two squares,
    /// the counters and the turn.
    #[inline(always)]
    pub(crate) fn write_plain(&mut self, plain: &PlainMove) {
        let us = plain.mover.side;
        if plain.spell {
            self.write_spell(plain);
        } else {
            self.remove(plain.from);
            if plain.victim.is_some() {
                self.remove(plain.to);
            }
            if !plain.dies {
                self.place(plain.to, Piece::new(us, plain.kind));
            }
            if let Some(slot) = plain.carried {
                self.captives[usize::from(slot)] = Some(CaptiveAt::Carried(plain.to));
                self.captives_moved();
            }
        }
        // KR-6.5: a capture or a death resets the count (a spell does not).
        self.halfmoves = if !plain.spell && (plain.victim.is_some() || plain.dies) {
            0
        } else {
            plain.halfmoves.saturating_add(1)
        };
        if us == Side::Black {
            self.fullmoves = plain.fullmoves.saturating_add(1);
        }
        self.turn = us.opposite();
    }

    /// [`Position::write_plain`]'s spell: the demotion or the silencing.
    /// Out of line: spells are few.
    #[cold]
    #[inline(never)]
    fn write_spell(&mut self, plain: &PlainMove) {
        match plain.victim {
            Some(target) => self.put(plain.to, Piece::new(target.side, plain.kind)),
            None => self.manned = self.manned.without(plain.to),
        }
    }

    /// Why a move the rules refuse is refused: once the game is over, for that.
    fn refusal(&self, e: Illegal) -> Illegal {
        match e {
            Illegal::GameOver(_) => e,
            // Only an illegal move pays for the look at whether any move is legal.
            _ => self.outcome().map_or(e, Illegal::GameOver),
        }
    }

    /// [`Position::check`] without the look for checkmate and stalemate.
    #[cfg(test)]
    pub(crate) fn check_rules(&self, mv: &Move) -> Result<(), Illegal> {
        self.check_rules_into(mv, None).map(|_| ())
    }

    /// [`Position::check`] without the look for checkmate and stalemate;
    /// `Ok(true)` if the royal test played the move into `next`.
    fn check_rules_into(&self, mv: &Move, next: Option<&mut Position>) -> Result<bool, Illegal> {
        if let Some(o) = self.early_end() {
            return Err(Illegal::GameOver(o));
        }
        let (from, to) = (mv.from, mv.to);
        let us = self.turn;
        let piece = self.squares[from.index()].ok_or(Illegal::NoPiece(from))?;
        if piece.side != us {
            return Err(Illegal::NotYourPiece {
                square: from,
                piece,
                turn: us,
            });
        }
        let target = self.squares[to.index()];
        let own_there = |p: Piece| p.side == us;
        match mv.action {
            Action::Move => {
                if let Some(occupant) = target {
                    return Err(if own_there(occupant) {
                        Illegal::OwnPieceThere { to, occupant }
                    } else {
                        Illegal::OccupiedByEnemy { to, occupant }
                    });
                }
                self.check_reach(piece, from, to)?;
            }
            Action::Capture => match target {
                None => return Err(Illegal::NothingToCapture(to)),
                Some(occupant) if own_there(occupant) => {
                    return Err(Illegal::OwnPieceThere { to, occupant });
                }
                Some(victim) => {
                    self.check_reach(piece, from, to)?;
                    if !self.may_capture(piece.kind, victim.kind) {
                        return Err(Illegal::SwordAgainstMount {
                            capturer: piece.kind,
                            victim: victim.kind,
                        });
                    }
                }
            },
            Action::Spell => {
                self.spell_effect(piece, from, to)?;
            }
            Action::Exchange => {
                if !self.rules.options.exchanges {
                    return Err(Illegal::ExchangesOff);
                }
                if exchange_receives(piece.kind).is_none() {
                    return Err(Illegal::CannotReceive { piece, from });
                }
                if from.distance(to) != 1 {
                    return Err(Illegal::NotNeighbours { from, to });
                }
                match target {
                    Some(p) if own_there(p) => {
                        if exchange_gives(p.kind).is_none() {
                            return Err(Illegal::CannotGive { to, piece: p });
                        }
                    }
                    _ => return Err(Illegal::NoExchangePartner(to)),
                }
            }
            Action::Transfer => {
                if self.carried_by(from).is_none() {
                    return Err(Illegal::NotCarrying { piece, from });
                }
                if from.distance(to) != 1 {
                    return Err(Illegal::NotNeighbours { from, to });
                }
                match target {
                    Some(p) if own_there(p) => {
                        if self.carried_by(to).is_some() {
                            return Err(Illegal::ReceiverCarries { to, piece: p });
                        }
                    }
                    _ => return Err(Illegal::NoTransferPartner(to)),
                }
            }
        }
        self.royal_test(mv, next)
            .map_err(|(square, attacker_square)| self.royal_refusal(mv, square, attacker_square))
    }

    /// What `caster` on `from` does casting at `to` (KR-4.1 to KR-4.3,
    /// KR-P2, KR-P3): demotes the enemy piece there to the kind given, or
    /// silences the empty manned square (`None`, KR-7.2); or why it cannot.
    /// The rules of a spell's target, in one place for the general path and
    /// the fast one (`plain_spell`).
    fn spell_effect(
        &self,
        caster: Piece,
        from: Square,
        to: Square,
    ) -> Result<Option<Kind>, Illegal> {
        let range = self.spell_range(caster.kind).ok_or(Illegal::NotACaster {
            piece: caster,
            from,
        })?;
        let distance = from.distance(to);
        if distance > range {
            return Err(Illegal::SpellOutOfRange {
                piece: caster,
                from,
                to,
                range,
                distance,
            });
        }
        match self.squares[to.index()] {
            Some(p) if p.side == caster.side => Err(Illegal::SpellAtOwnPiece { to, piece: p }),
            Some(p) => match demoted(p.kind) {
                None => Err(Illegal::CannotBeDemoted { to, piece: p }),
                Some(_) if is_khan_type(p.kind) && !self.rules.options.magician_demotes_khan => {
                    Err(Illegal::KhanSpellsOff { to, piece: p })
                }
                Some(kind) => Ok(Some(kind)),
            },
            // KR-P2: an empty manned square is the only other target.
            None if self.manned.contains(to) => Ok(None),
            None => Err(Illegal::NoSpellTarget(to)),
        }
    }

    /// Why a move that leaves the royal leader attacked is refused. Out of
    /// line: the replay of a valid record never comes here.
    #[cold]
    #[inline(never)]
    fn royal_refusal(&self, mv: &Move, square: Square, attacker_square: Square) -> Illegal {
        let mut next = *self;
        next.play(mv, &mut NoEvents);
        let leader = next.squares[square.index()].map_or(Kind::Khan, |p| p.kind);
        let attacker = next.squares[attacker_square.index()]
            .unwrap_or(Piece::new(self.turn.opposite(), Kind::Warrior));
        Illegal::LeavesRoyalAttacked {
            leader,
            square,
            attacker,
            attacker_square,
        }
    }

    #[inline]
    fn check_reach(&self, piece: Piece, from: Square, to: Square) -> Result<(), Illegal> {
        let power = self.rules.options.power_magician_moves;
        if reaches(from, to, piece.kind, self.open(), power) {
            Ok(())
        } else {
            Err(self.reach_refusal(piece, from, to))
        }
    }

    /// Why a move outside the piece's movement is refused (out of line, as
    /// [`Position::royal_refusal`]).
    #[cold]
    #[inline(never)]
    fn reach_refusal(&self, piece: Piece, from: Square, to: Square) -> Illegal {
        let power = self.rules.options.power_magician_moves;
        if from != to && reach(from, piece.kind, Bitboard::FULL, power).contains(to) {
            Illegal::Blocked { piece, from, to }
        } else {
            Illegal::CannotReach {
                piece,
                from,
                to,
                how: movement_words(piece.kind, power),
            }
        }
    }

    /// Carry out a move that obeys the movement rules (KR-P11), then count
    /// the ply (KR-6.5, KR-P14) and pass the turn.
    pub(crate) fn play<S: EventSink>(&mut self, mv: &Move, sink: &mut S) {
        let us = self.turn;
        let mut reset = false;
        let (from, to) = (mv.from, mv.to);
        match mv.action {
            Action::Move | Action::Capture => self.play_move(from, to, sink, &mut reset),
            Action::Spell => match self.squares[to.index()] {
                Some(p) => {
                    if let Some(k) = demoted(p.kind) {
                        self.set_kind(to, k);
                        sink.event(Event::Demoted {
                            square: to,
                            from: p.kind,
                            to: k,
                        });
                    }
                }
                None => {
                    self.manned = self.manned.without(to);
                    sink.event(Event::Silenced { square: to });
                }
            },
            Action::Exchange => {
                if let (Some(r), Some(g)) = (self.squares[from.index()], self.squares[to.index()])
                    && let (Some(up), Some(down)) =
                        (exchange_receives(r.kind), exchange_gives(g.kind))
                {
                    self.set_kind(from, up);
                    self.set_kind(to, down);
                    sink.event(Event::Exchanged {
                        receiver: from,
                        received: up,
                        giver: to,
                        gave: down,
                    });
                }
            }
            // KR-P10: a transfer never picks up, drops off or releases.
            Action::Transfer => {
                if let Some(c) = self.carried_by(from) {
                    self.set_captive(c, Some(CaptiveAt::Carried(to)));
                    sink.event(Event::Transferred {
                        captive: c,
                        from,
                        to,
                    });
                }
            }
        }
        self.release(sink);
        self.halfmoves = if reset {
            0
        } else {
            self.halfmoves.saturating_add(1)
        };
        if us == Side::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = us.opposite();
    }

    /// A move or capture and its consequences, in the order of KR-P11.
    fn play_move<S: EventSink>(
        &mut self,
        from: Square,
        to: Square,
        sink: &mut S,
        reset: &mut bool,
    ) {
        let Some(mover) = self.remove(from) else {
            return;
        };
        let mut carrying = self.carried_by(from);
        let mut victim_kind = None;
        if let Some(victim) = self.remove(to) {
            *reset = true;
            victim_kind = Some(victim.kind);
            sink.event(Event::Captured {
                piece: victim,
                square: to,
            });
            // KR-7.6: the carrier-capture rules.
            if let Some(vc) = self.carried_by(to) {
                if vc == Captive::General || vc == Captive::Khan(mover.side) {
                    if let Some(old) = carrying {
                        self.set_captive(old, None);
                        sink.event(Event::CaptiveDied {
                            captive: old,
                            square: to,
                        });
                    }
                    carrying = Some(vc);
                    sink.event(Event::TookOver {
                        captive: vc,
                        square: to,
                    });
                } else {
                    self.set_captive(vc, None);
                    sink.event(Event::CaptiveDied {
                        captive: vc,
                        square: to,
                    });
                }
            }
        }
        if let Some(c) = carrying {
            self.set_captive(c, Some(CaptiveAt::Carried(to)));
        }
        self.place(to, mover);

        // KR-7.1: tower death, with whatever the mover now carries.
        if self.manned.contains(to) && !is_magician(mover.kind) {
            self.remove(to);
            *reset = true;
            sink.event(Event::DiedInTower {
                piece: mover,
                square: to,
            });
            if let Some(c) = carrying {
                self.set_captive(c, None);
                sink.event(Event::CaptiveDied {
                    captive: c,
                    square: to,
                });
            }
            return;
        }

        // KR-7.3: pickup, only by a piece that now carries nothing.
        let tower = if self.tower_squares().contains(to) {
            self.towers().position(|t| t.contains(to))
        } else {
            None
        };
        if carrying.is_none()
            && let Some(t) = tower
            && !self.manned.contains(to)
            && let Some(c) = self.tower_captive(t)
        {
            self.set_captive(c, Some(CaptiveAt::Carried(to)));
            carrying = Some(c);
            sink.event(Event::PickedUp {
                captive: c,
                square: to,
            });
        }

        // KR-7.7, KR-P12, KR-P13: drop-off at the captive's ger.
        match carrying {
            Some(c @ Captive::Khan(side)) if self.gers[side.index()].contains(to) => {
                self.set_captive(c, Some(CaptiveAt::Waiting(to)));
                sink.event(Event::DroppedOff {
                    captive: c,
                    ger: to,
                });
            }
            Some(Captive::General) if self.gers[mover.side.index()].contains(to) => {
                self.set_captive(Captive::General, None);
                self.delivered = Some(mover.side);
                sink.event(Event::Delivered {
                    side: mover.side,
                    ger: to,
                });
            }
            _ => {}
        }

        // KR-5.2 then KR-5.1 (KR-P8).
        let mut kind = mover.kind;
        if self.rules.options.capture_promotions
            && let Some(v) = victim_kind
        {
            kind = capture_promoted(kind, v);
        }
        if self.rules.options.base_promotions && self.rules.camps[mover.side.index()].contains(to) {
            kind = base_promoted(kind);
        }
        if kind != mover.kind {
            self.set_kind(to, kind);
            sink.event(Event::Promoted {
                square: to,
                from: mover.kind,
                to: kind,
            });
        }
    }

    /// KR-7.7, KR-P12: the gers a khan waits at that are now empty, where
    /// it appears (the general path's [`Position::release`]; the fast
    /// path's move and spell leave such a position to it).
    #[inline(always)]
    fn released_gers(&self) -> Bitboard {
        self.waiting & !self.occupied()
    }

    /// KR-7.7, KR-P12: whether a captive `at` this place is a khan waiting
    /// at a ger that is now empty ([`Position::released_gers`]).
    fn released(&self, at: CaptiveAt) -> bool {
        matches!(at, CaptiveAt::Waiting(g) if self.released_gers().contains(g))
    }

    /// KR-7.7, KR-P12: a khan waiting at a ger that is now empty appears there.
    fn release<S: EventSink>(&mut self, sink: &mut S) {
        for c in CAPTIVES {
            if let Some(at @ CaptiveAt::Waiting(g)) = self.captive(c)
                && self.released(at)
                && let Captive::Khan(side) = c
            {
                self.set_captive(c, None);
                self.put(g, Piece::new(side, Kind::Khan));
                sink.event(Event::Released {
                    captive: c,
                    square: g,
                });
            }
        }
    }

    /// What the move promotes its piece to, if anything (for tokens).
    pub(crate) fn promotion_of(&self, mv: &Move) -> Option<Kind> {
        if !matches!(mv.action, Action::Move | Action::Capture) {
            return None;
        }
        let p = self.squares[mv.from.index()]?;
        if self.manned.contains(mv.to) && !is_magician(p.kind) {
            return None;
        }
        let mut kind = p.kind;
        if self.rules.options.capture_promotions
            && mv.action == Action::Capture
            && let Some(v) = self.squares[mv.to.index()]
        {
            kind = capture_promoted(kind, v.kind);
        }
        if self.rules.options.base_promotions && self.rules.camps[p.side.index()].contains(mv.to) {
            kind = base_promoted(kind);
        }
        (kind != p.kind).then_some(kind)
    }
}
