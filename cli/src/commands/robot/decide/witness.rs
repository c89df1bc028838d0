//! Games between players with the program: both sign with their own keys
//! and enter their own chains into every roll, and their desks copy every
//! mail of the game to the robot (`yam challenge --referee`). The robot
//! holds no key of such a game and signs nothing: it keeps a witnessed
//! copy of the record, adopted by the desk's own rule (`adoption`), and
//! watches the clock.

use yam_referee::fair_play::sign::PublicKey;
use yam_referee::fair_play::turn::{EventBody, Mode, SignedEvent};
use yam_referee::signed::table::next_duty;
use yam_referee::signed::{Checkpoint, Known};

use super::keybook::{Source, key_register, list_yam};
use super::{
    Binding, GameMeta, Loaded, Robot, Stage, Work, checkpoint_path, record_path, valid_id,
};
use crate::game::checkpoint;
use crate::mail::cards::{Card, is_card};
use crate::mail::extract::{Incoming, Turn};
use yam_referee::signed::adoption::{
    Adoption, Stands, adoption, resignation_taken_back, void_resigner,
};

use super::super::auth;
use super::super::hygiene::{self, RateLimit};
use crate::game::record::{RecordFault, claimed_id};

/// The key (hex) that owes its resignation again once a crossing made
/// `void` void against `standing` (3.10): the void history's resigner,
/// unless she has signed in the standing one already (her resignation
/// signed again, read before this late copy of the void one).
fn owed_after_crossing(void: &[SignedEvent], standing: &[SignedEvent]) -> Option<String> {
    void_resigner(void)
        .filter(|k| !standing.iter().any(|e| e.event.author == *k))
        .map(|k| hex_key(&k))
}

fn hex_key(key: &PublicKey) -> String {
    hex::encode(key.as_bytes())
}

fn key_of(hex_text: &str) -> Option<PublicKey> {
    PublicKey::from_hex(hex_text)
}

/// How many addresses a key of a witnessed game may be claimed for (by
/// cards its owner signed, `proven_key`): the game's bookkeeping does not
/// grow with the cards a player signs.
const MAX_CLAIMS_PER_KEY: usize = 3;

/// Why a mail's record was not taken: logged, and said to the sender
/// within the limits on answers.
#[derive(Debug)]
enum NotTaken {
    /// No `GameId` tag.
    NoGameId,
    /// A game id the robot does not keep (a path, a control character).
    BadId(String),
    /// The game's bookkeeping is there, its witnessed record is not.
    RecordMissing(String),
    /// The witnessed record the robot keeps does not read.
    StoredUnreadable(String, RecordFault),
    /// The mail's record does not verify (or does not read).
    DoesNotVerify(String, RecordFault),
    /// Its events are of another game than its `GameId`.
    OtherGame(String),
    /// It has no challenge.
    NoChallenge(String),
    /// Not a game between two players with their own keys.
    NotPeer(String),
    /// Fewer events than the robot holds, on the same history.
    OldTurn {
        id: String,
        received: usize,
        stored: usize,
    },
    /// Another event at a place where the robot holds one, signed by the
    /// same key: two histories (3.9).
    SignedTwice {
        id: String,
        at: usize,
        /// The key's fingerprint.
        signer: String,
    },
    /// The histories part at an event signed by different keys.
    Forked { id: String, common: usize },
    /// New events of a game one key signed two histories of: for a
    /// director, kept as evidence, not taken.
    AfterEquivocation {
        id: String,
        /// The event signed twice.
        at: u32,
        /// Where the record is kept, in the robot's data directory.
        kept: String,
    },
    /// An event of a player whose void resignation (3.10) the robot keeps,
    /// which is not that resignation signed again.
    ResignationTakenBack {
        id: String,
        seq: u32,
        /// The resigner's key fingerprint.
        resigner: String,
    },
    /// A first sight that does not name this robot as the referee.
    NotNamed { id: String, robot: String },
    /// Not UTF-8.
    NotUtf8,
    /// No candidate of the mail was a record that reads.
    NoRecord,
}

impl std::fmt::Display for NotTaken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotTaken::NoGameId => f.write_str("the record names no game (no GameId tag)"),
            NotTaken::BadId(id) => write!(f, "{id:?} is not a game id the robot keeps"),
            NotTaken::RecordMissing(id) => write!(f, "{id}: the witnessed record is missing"),
            NotTaken::StoredUnreadable(id, e) => write!(f, "{id}: the witnessed record: {e}"),
            NotTaken::DoesNotVerify(id, e) => write!(f, "game {id}: {e}"),
            NotTaken::OtherGame(id) => {
                write!(f, "game {id}: the record's events are of another game")
            }
            NotTaken::NoChallenge(id) => write!(f, "game {id}: the record has no challenge"),
            NotTaken::NotPeer(id) => write!(
                f,
                "game {id}: not a game between two players with their own keys (mode peer)"
            ),
            NotTaken::OldTurn {
                id,
                received,
                stored,
            } => write!(
                f,
                "game {id}: an old turn ({received} events; the game has {stored})"
            ),
            NotTaken::SignedTwice { id, at, signer } => write!(
                f,
                "game {id}: a forked history: the robot holds another event #{at}, also signed by the key {signer}; two different events signed at one place are for a director to rule on (`yam dispute` with both records), and the robot reminds nobody of this game any more"
            ),
            NotTaken::AfterEquivocation { id, at, kept } => write!(
                f,
                "game {id}: event #{at} of this game was signed twice; the game is for a director (`yam dispute` with both records), and the robot takes nothing more into its copy: this record is kept as evidence ({kept})"
            ),
            NotTaken::Forked { id, common } => write!(
                f,
                "game {id}: a forked history: the mail's record and the robot's share their first {common} events and differ from event #{common} on"
            ),
            NotTaken::ResignationTakenBack { id, seq, resigner } => write!(
                f,
                "game {id}: the key {resigner} resigned (the resignation crossed the other player's step in the mail and is kept beside the game), and event #{seq} of this record is not that resignation signed again: a resignation is not taken back by crossing (docs/fair-play.md, 3.10); for a director"
            ),
            NotTaken::NotNamed { id, robot } => write!(
                f,
                "game {id}: the challenge does not name this robot as its referee (yam challenge ... --referee {robot})"
            ),
            NotTaken::NotUtf8 => f.write_str("the record is not UTF-8"),
            NotTaken::NoRecord => f.write_str("no readable record"),
        }
    }
}

/// A record the robot took.
struct Taken {
    log: String,
}

impl Robot {
    /// Handles a mail carrying a signed Yam record of a game the robot
    /// witnesses (or is asked to): true when the mail is dealt with here.
    /// Records of the robot's own games stay with the command path, so a
    /// player's reply that carries one is still a command mail.
    pub(super) fn witness(
        &self,
        work: &mut Work,
        key: &str,
        incoming: &Incoming,
        raw: &[u8],
    ) -> bool {
        let Some(from) = incoming.from.clone() else {
            return false;
        };
        // Left to the hygiene rules, which ignore them (a From the robot
        // could not mail was ignored before: `Robot::handle`).
        if from == self.address {
            return false;
        }
        let records: Vec<&[u8]> = incoming
            .turns
            .iter()
            .map(|t| match t {
                Turn::Attachment { bytes, .. } => bytes.as_slice(),
                Turn::Block(block) => block.payload.as_slice(),
            })
            .filter(|b| !is_card(b))
            .collect();
        let Some(first) = records.first() else {
            if self.lost_turn(work, key, incoming, &from) {
                return true;
            }
            return self.keys_mail(work, key, incoming, raw, &from);
        };
        let meta = claimed_id(first).and_then(|id| self.meta(work, &id));
        if meta.as_ref().is_some_and(|m| !m.witness) {
            return false;
        }
        let limit = RateLimit::new(&self.dir().join("rate"), self.settings.per_hour)
            .counting(&self.counted);
        // Verifying costs more than reading a command: an address that does
        // not speak for a key of the game is counted before it, against the
        // same allowances as unauthenticated command mail (its sender's and
        // the hour's, `per_sender_per_hour` and `unauthenticated_per_hour`),
        // so a flood of records from strangers is cut off like a flood of
        // commands, however many addresses send it. (Counted against the
        // sender's alone before the thirty-fifth step of issue #22, twenty
        // strangers had twenty records verified where an hour allowed five.)
        let member = meta.is_some_and(|m| m.bound.iter().any(|b| b.address == from));
        if !member
            && let Err(why) = hygiene::Limits::new(&self.dir(), &self.settings, &self.counted)
                .read_unauthenticated(&from, self.now)
        {
            work.log.push(format!("ignored {key} from {from}: {why}"));
            return true;
        }
        let hygiene = hygiene::ignore_reason(incoming, raw, &self.address);
        // The first candidate that is taken decides; the others carry the
        // same record (the attachment and the block are two copies).
        let mut refusal = None;
        for bytes in &records {
            match self.take(work, key, incoming, &from, bytes, hygiene.is_none()) {
                Ok(taken) => {
                    work.log.push(format!("{key}: {}", taken.log));
                    return true;
                }
                Err(why) => {
                    refusal.get_or_insert(why);
                }
            }
        }
        let why = refusal.unwrap_or(NotTaken::NoRecord);
        if let Some(automatic) = hygiene {
            // Never answered: an automatic mail answered is how robots loop.
            work.log.push(format!(
                "ignored {key} from {from}: {automatic}, and its record is not taken: {why}"
            ));
            return true;
        }
        work.log
            .push(format!("refused {key} from {from}: its record: {why}"));
        // A stranger was counted already; a member's refusals count here.
        // Whoever the From names gets at most one refusal a day, within the
        // hour's answers, as for a command mail without a token: the From
        // of a record that is not taken proves nothing, and a refusal sent
        // for each was the robot mailing whoever a stranger named.
        if (!member || limit.allow(&from, self.now))
            && self.may_answer_unauthenticated(work, key, hygiene::Answer::Refusal, &from)
        {
            let body = format!(
                "Refused: the Yam record in your mail was not taken: {why}.\n\n\
                 The robot's copy of the game is unchanged. If you did not send this mail, \
                 someone wrote in your name; a record needs the game's signatures.\n"
            );
            self.reply(work, key, incoming, &from, body, None);
        }
        true
    }

    /// Verifies one record and adopts it into the witnessed copy.
    /// `personal`: the mail passed every hygiene rule (needed to bind an
    /// address to a key; an automatic step comes from an address bound
    /// already).
    fn take(
        &self,
        work: &mut Work,
        mail_key: &str,
        incoming: &Incoming,
        from: &str,
        bytes: &[u8],
        personal: bool,
    ) -> Result<Taken, NotTaken> {
        let id = claimed_id(bytes).ok_or(NotTaken::NoGameId)?;
        if !valid_id(&id) {
            return Err(NotTaken::BadId(id));
        }
        let meta = self.meta(work, &id);
        let stored: Vec<SignedEvent> = match &meta {
            Some(_) => {
                let text = self.read(work, &record_path(&id)).ok_or_else(|| {
                    // The robot's own store, not the mail: noted, so
                    // the mail waits for the operator instead of its
                    // sender being refused with the robot's paths.
                    self.note_unreadable(&record_path(&id), "missing".into());
                    NotTaken::RecordMissing(id.clone())
                })?;
                crate::game::record::stored_events(text.as_bytes()).map_err(|e| {
                    self.note_unreadable(&record_path(&id), e.to_string());
                    NotTaken::StoredUnreadable(id.clone(), e)
                })?
            }
            None => Vec::new(),
        };
        // The first sight is verified completely; later, the stored
        // events the game's checkpoint vouches for (verified when written)
        // are met again byte for byte, their signatures not checked twice.
        let kept = self
            .read(work, &checkpoint_path(&id))
            .and_then(|text| checkpoint::from_text(&text));
        let known = Known::Events(checkpoint::vouched(kept.as_ref(), &stored));
        let place = self.root().join(record_path(&id));
        let (record, replay) = crate::game::record::verified(bytes, &place, known)
            .map_err(|e| NotTaken::DoesNotVerify(id.clone(), e))?;
        let received = replay.events().all();
        if received.first().is_none_or(|e| e.event.game.as_str() != id) {
            return Err(NotTaken::OtherGame(id));
        }
        let challenge = replay
            .challenge()
            .ok_or_else(|| NotTaken::NoChallenge(id.clone()))?;
        if challenge.mode != Mode::Peer {
            return Err(NotTaken::NotPeer(id));
        }
        // The keys this address was bound to in the game, and the one of
        // them known for it (confirmed through the address).
        let here: Vec<String> = meta
            .as_ref()
            .map(|m| {
                m.bound
                    .iter()
                    .filter(|b| b.address == from)
                    .map(|b| b.key.clone())
                    .collect()
            })
            .unwrap_or_default();
        let confirmed_here = here
            .iter()
            .find(|k| self.known_key(work, from, k))
            .and_then(|k| key_of(k));
        // An address speaks for a key only when it proves it: the key known
        // for the address already, or a card the key signed naming the
        // address (`X-Yam-Card`). Its `From` alone proves nothing: the
        // invited player who relayed the challenger's mail first was bound
        // to the challenger's key before this (docs/robot.md, "Whose game
        // it is"). A card proves only that its key claims the address, so a
        // binding by card is a claim beside others, never exclusive: it
        // counts (reminders, the register, the seat's name) once the key is
        // confirmed for the address, and a player's own claim is taken
        // even after her opponent's card claimed her address. Binding mails
        // the address a confirmation, so it is done for a person's mail
        // only; an automatic one relays.
        let parties: Vec<PublicKey> = replay.parties().iter().map(|p| p.key).collect();
        let proof = match (confirmed_here, personal) {
            (None, true) => self.proven_key(work, incoming, from, &parties),
            _ => None,
        };
        let binding = proof.filter(|k| !here.contains(&hex_key(k))).filter(|k| {
            // A party can sign cards naming any number of addresses: a few
            // claims of a key are kept, the rest logged.
            let claims = meta.as_ref().map_or(0, |m| {
                m.bound.iter().filter(|b| b.key == hex_key(k)).count()
            });
            if claims >= MAX_CLAIMS_PER_KEY {
                work.log.push(format!(
                    "{id}: {from} claims the key {}, which {MAX_CLAIMS_PER_KEY} addresses claim already: not bound",
                    k.fingerprint()
                ));
            }
            claims < MAX_CLAIMS_PER_KEY
        });
        // A key bound here already, not yet confirmed for the address: its
        // confirmation may have been held back by a limit when it was bound
        // (the hour's answers spent by a flood); asked again with this
        // mail, within the same limits, and a code still waiting covers it
        // (nothing is mailed twice). Bound once, the key's later mails
        // never asked again, and the players were never told why no
        // reminder came.
        if let Some(k) = proof
            && binding.is_none()
            && here.contains(&hex_key(&k))
        {
            self.vouch(work, mail_key, from, &hex_key(&k), Source::Game(&id));
        }
        let sender = confirmed_here
            .or(proof)
            .or_else(|| here.first().and_then(|k| key_of(k)));
        // Every event is verified and signed by a party: a mail from an
        // address bound to no key (a relay) is taken as a bound member's
        // that brings the other player's events, so the robot's clock
        // sees every turn; it binds nobody. (Anyone who knows a member's
        // address can write under it, so a relay can do no more.)
        let mut missed = 0;
        // Where the new events begin: after the stored ones, or after the
        // events a crossing's two histories share.
        let mut base = stored.len();
        let mut crossed = None;
        let mut owed_now = None;
        let new = match adoption(&stored, &received, sender) {
            Adoption::New(n) => n,
            // An event signed without the pen (a resignation, a forfeit
            // claim) crossed the pen-holder's in the mail: the robot settles
            // it as the desks do (docs/fair-play.md, 3.10). The void history
            // is kept as evidence; the game is the one that stands (a game
            // the void claim had closed is open again).
            Adoption::Crossed {
                common,
                stands: Stands::Kept,
            } => {
                let path = format!("games/{id}/crossed-{common}.yam");
                work.writes
                    .insert(path.clone(), String::from_utf8_lossy(bytes).into_owned());
                if let (Some(k), Some(mut m)) = (
                    owed_after_crossing(&received[common..], &stored[common..]),
                    meta.clone(),
                ) && m.resignation_owed.is_none()
                {
                    m.resignation_owed = Some(k);
                    self.put_meta(work, &m);
                }
                return Ok(Taken {
                    log: format!(
                        "{id}: the record from {from} crossed the stored one in the mail after event #{}: its events signed without the pen are void (docs/fair-play.md, 3.10) and it is kept in {path}; the stored game stands",
                        common.saturating_sub(1)
                    ),
                });
            }
            Adoption::Crossed {
                common,
                stands: Stands::Received,
            } => {
                base = common;
                owed_now = owed_after_crossing(&stored[common..], &received[common..]);
                missed = received[common..]
                    .iter()
                    .filter(|e| Some(e.event.author) != sender)
                    .count();
                crossed = Some(common);
                received.len() - common
            }
            Adoption::Foreign(_) => {
                missed = received[base..]
                    .iter()
                    .filter(|e| Some(e.event.author) != sender)
                    .count();
                received.len() - stored.len()
            }
            Adoption::Same => 0,
            // An old mail still proves its address's key: the binding is
            // kept, and nothing else of it.
            Adoption::Old if binding.is_some() => 0,
            Adoption::Old => {
                return Err(NotTaken::OldTurn {
                    id,
                    received: received.len(),
                    stored: stored.len(),
                });
            }
            Adoption::Fork(common) => {
                // Two different events at the same place signed by the same
                // key: its owner signed two histories (3.9), one perhaps
                // shown to the robot alone. Which is the game is a
                // director's to rule; the robot keeps both as evidence and
                // reminds nobody of the game again (its clock would run
                // against the other player while she plays on, and tell
                // the one who signed twice to claim against her).
                let twice = stored
                    .get(common)
                    .zip(received.get(common))
                    .filter(|(kept, other)| kept.event.author == other.event.author)
                    .map(|(kept, _)| kept.event.author);
                if let (Some(signer), Some(mut m)) = (twice, meta.clone())
                    && m.equivocation.is_none()
                {
                    m.equivocation = Some(super::Equivocation {
                        key: hex_key(&signer),
                        event: u32::try_from(common).unwrap_or(u32::MAX),
                        since: self.now,
                    });
                    work.writes.insert(
                        format!("games/{id}/equivocation.yam"),
                        String::from_utf8_lossy(bytes).into_owned(),
                    );
                    self.put_meta(work, &m);
                    work.log.push(format!(
                        "{id}: event #{common} signed twice by the key {}: the other history is kept in games/{id}/equivocation.yam; the game is for a director, and reminded no more",
                        signer.fingerprint()
                    ));
                }
                return Err(match twice {
                    Some(signer) => NotTaken::SignedTwice {
                        id,
                        at: common,
                        signer: signer.fingerprint().to_string(),
                    },
                    None => NotTaken::Forked { id, common },
                });
            }
        };
        if let (Some(m), Some(k)) = (&meta, binding)
            && new == 0
        {
            // Nothing new but who speaks for a key: the binding alone.
            let mut m = m.clone();
            self.bind(work, mail_key, &mut m, from, &k, challenge.challenger.key);
            self.put_meta(work, &m);
            self.refresh_seats(work, &id);
            return Ok(Taken {
                log: format!(
                    "{id}: {from} speaks for the key {} (its signed card); no new event",
                    k.fingerprint()
                ),
            });
        }
        if new == 0 {
            return Ok(Taken {
                log: format!("{id}: read before from {from}; nothing changes"),
            });
        }
        // A game one key signed two histories of is a director's: the copy
        // the robot keeps follows one of them, on which only their author
        // plays on (the other player's turns are on the other history, and
        // refused), so whatever continues it is that author's word alone.
        // Kept as evidence beside the game, never taken: his forfeit claim
        // there closed the witnessed game against a player whose turns of
        // those same days the robot refused.
        // One file, the longest such record: a file a length, the one who
        // signed twice could fill the store with a copy of the game for
        // every event he adds (a player's own mail is never limited).
        if let Some(twice) = meta.as_ref().and_then(|m| m.equivocation.as_ref()) {
            let kept = format!("games/{id}/after-equivocation.yam");
            if self
                .read(work, &kept)
                .is_none_or(|before| before.len() < bytes.len())
            {
                work.writes
                    .insert(kept.clone(), String::from_utf8_lossy(bytes).into_owned());
            }
            return Err(NotTaken::AfterEquivocation {
                id,
                at: twice.event,
                kept,
            });
        }
        let mut meta = match meta {
            Some(m) => m,
            None => {
                // Only a game that names this robot is witnessed: a copy
                // forwarded to it by someone else does not start one.
                if incoming.referee.as_deref() != Some(self.address.as_str()) {
                    return Err(NotTaken::NotNamed {
                        id,
                        robot: self.address.clone(),
                    });
                }
                GameMeta {
                    id: id.clone(),
                    game: record.game().map_or("?", |g| g.name()).to_owned(),
                    ruleset: record
                        .tags
                        .get("Ruleset")
                        .unwrap_or(replay.ruleset_name())
                        .to_owned(),
                    stage: Stage::Pending,
                    // The address proven for the challenger's key, when
                    // a mail proves it (`bind`).
                    challenger: String::new(),
                    invited: None,
                    challenger_second: false,
                    seats: Vec::new(),
                    thread: Vec::new(),
                    last_activity: self.now,
                    reminders_sent: Vec::new(),
                    reminders_since: None,
                    equivocation: None,
                    resignation_owed: None,
                    witness: true,
                    bound: Vec::new(),
                    created: Some(self.now),
                    // The desks keep their own clocks (`yam forfeit`);
                    // the witness keeps the same one, to tell the waiting
                    // player when the claim is hers.
                    silence: Default::default(),
                }
            }
        };
        // A resignation is not taken back by crossing (3.10): the resigner's
        // next event must be it, signed again.
        if owed_now.is_some() && meta.resignation_owed.is_none() {
            meta.resignation_owed = owed_now;
        }
        if let Some(resigner) = meta.resignation_owed.as_deref().and_then(key_of) {
            if let Some(instead) = resignation_taken_back(&resigner, &received[base..]) {
                return Err(NotTaken::ResignationTakenBack {
                    id,
                    seq: instead.event.seq,
                    resigner: resigner.fingerprint().to_string(),
                });
            }
            if received[base..].iter().any(|e| {
                e.event.author == resigner && matches!(e.event.body, EventBody::Resignation)
            }) {
                meta.resignation_owed = None;
            }
        }
        let opened = meta.stage == Stage::Pending && replay.opening_complete();
        // A claim that stands closes the copy, whatever came after it: a
        // late move of the accused does not withdraw it (only the
        // claimant's own turn does, 9.7), and taking that move as a turn
        // reopened the game and ran the clock against the winner.
        let claimed_forfeit = !replay.claims().is_empty();
        meta.stage = if replay.ending().is_some() || claimed_forfeit {
            Stage::Over
        } else if replay.opening_complete() {
            Stage::Active
        } else {
            Stage::Pending
        };
        meta.changed_by(&received[base..], &replay, self.now);
        if let Some(m) = &incoming.message_id {
            crate::mail::thread::add(&mut meta.thread, m);
        }
        let text = String::from_utf8(bytes.to_vec()).map_err(|_| NotTaken::NotUtf8)?;
        if let Some(k) = binding {
            self.bind(
                work,
                mail_key,
                &mut meta,
                from,
                &k,
                challenge.challenger.key,
            );
        }
        meta.seats = self.witness_seats(work, &meta, &replay);
        if opened {
            // The register: the signed opening of every game, kept under
            // each of its keys; a player's register is the games of her
            // known keys, so a stranger's game never enters it.
            for party in replay.parties() {
                work.writes.insert(
                    format!("{}/{id}.yam", key_register(&hex_key(&party.key))),
                    text.clone(),
                );
            }
            for b in &meta.bound {
                if !self.known_key(work, &b.address, &b.key) {
                    continue;
                }
                if let Some(mut player) = self.player(work, &b.address)
                    && !player.games.contains(&id)
                {
                    player.games.push(id.clone());
                    self.put_player(work, &player);
                }
            }
        }
        if let Some(common) = crossed
            && let Some(void) = self.read(work, &record_path(&id))
        {
            work.writes
                .insert(format!("games/{id}/crossed-{common}.yam"), void);
        }
        // The mail's bytes, exactly: the witnessed copy is the players'
        // record byte for byte.
        work.writes.insert(record_path(&id), text);
        if let Some(now) = Checkpoint::of(&replay) {
            work.writes
                .insert(checkpoint_path(&id), checkpoint::to_text(&now));
        }
        self.put_meta(work, &meta);
        Ok(Taken {
            log: format!(
                "witnessed {id}: {new} new event(s) {}{}{}{}",
                match sender {
                    Some(k) => format!("signed by {} from {from}", k.fingerprint()),
                    None => format!(
                        "relayed from {from}, which speaks for no key of the game (its mail carries no card signed by one naming it: an earlier Yam, or not a player)"
                    ),
                },
                if missed > 0 && sender.is_some() {
                    format!("; caught up on {missed} event(s) of the other player missed before")
                } else {
                    String::new()
                },
                match meta.stage {
                    Stage::Over => "; the game is over",
                    _ => "",
                },
                match crossed {
                    Some(common) => format!(
                        "; it crossed the stored record after event #{}: the stored events signed without the pen are void (docs/fair-play.md, 3.10), kept in games/{id}/crossed-{common}.yam",
                        common.saturating_sub(1)
                    ),
                    None => String::new(),
                }
            ),
        })
    }

    /// The key of the game `from` proves it speaks for: a key of the game
    /// known for `from` already (confirmed through the address, `keybook`),
    /// first, since a card proves only what its key claims; else a card
    /// signed by a key of the game naming `from` (the mail's `X-Yam-Card`,
    /// or a card among its turns). A mail's `From` alone proves no key.
    fn proven_key(
        &self,
        work: &Work,
        incoming: &Incoming,
        from: &str,
        parties: &[PublicKey],
    ) -> Option<PublicKey> {
        let known = self.key_book(work, from).keys;
        if let Some(k) = parties.iter().find(|k| known.contains(&hex_key(k))) {
            return Some(*k);
        }
        let carried = incoming.card.iter().map(Vec::as_slice).chain(
            incoming
                .turns
                .iter()
                .map(|t| match t {
                    Turn::Attachment { bytes, .. } => bytes.as_slice(),
                    Turn::Block(block) => block.payload.as_slice(),
                })
                .filter(|b| is_card(b)),
        );
        carried
            .filter_map(|bytes| Card::read(bytes).ok())
            .find(|card| card.address == from && parties.contains(&card.key))
            .map(|card| card.key)
    }

    /// Binds `from` to the key `key` of a witnessed game (proven:
    /// `proven_key`), and makes the key a candidate for the address unless
    /// it is known (`keybook`: the confirmation proves the address).
    fn bind(
        &self,
        work: &mut Work,
        mail_key: &str,
        meta: &mut GameMeta,
        from: &str,
        key: &PublicKey,
        challenger: PublicKey,
    ) {
        meta.bound.push(Binding {
            key: hex_key(key),
            address: from.to_owned(),
        });
        // Who the game's addresses are, as far as the robot knows: a claim
        // names them until a confirmed one does.
        let confirmed = self.known_key(work, from, &hex_key(key));
        if *key == challenger {
            if confirmed || meta.challenger.is_empty() {
                meta.challenger = from.to_owned();
            }
        } else if confirmed || meta.invited.is_none() {
            meta.invited = Some(from.to_owned());
        }
        self.vouch(work, mail_key, from, &hex_key(key), Source::Game(&meta.id));
        // A game opened before its player's address was bound: into her
        // register now, when the key is hers already (else on confirming).
        if meta.stage != Stage::Pending
            && self.known_key(work, from, &hex_key(key))
            && let Some(mut player) = self.player(work, from)
            && !player.games.contains(&meta.id)
        {
            player.games.push(meta.id.clone());
            self.put_player(work, &player);
        }
    }

    /// The games in the register of `address`: the robot's own games it
    /// started, and the witnessed games of its known keys.
    pub(super) fn registered_games(&self, work: &Work, address: &str) -> Vec<String> {
        let rel = format!("robot/register/{}", auth::address_key(address));
        // What a decision read: a plan not done that writes it holds the
        // decision back (`journal`).
        self.touched.borrow_mut().insert(rel.clone());
        let mut ids = list_yam(&self.root().join(rel));
        for key in self.key_book(work, address).keys {
            for id in self.games_under_key(&key) {
                let bound_here = self
                    .meta(work, &id)
                    .is_some_and(|m| m.bound.iter().any(|b| b.key == key && b.address == address));
                if bound_here && !ids.contains(&id) {
                    ids.push(id);
                }
            }
        }
        ids.sort();
        ids
    }

    /// A witnessed game's players in seat order, by the names players
    /// know: the address of a key known for it; an address not yet
    /// confirmed for its key is marked so (and is no member: `show` and
    /// `list` by that address do not reach the game); a key no mail has
    /// spoken for yet is its role.
    fn witness_seats(
        &self,
        work: &Work,
        meta: &GameMeta,
        replay: &yam_referee::signed::SignedReplay,
    ) -> Vec<String> {
        // A key may be claimed for several addresses (cards anyone can
        // sign): the one it is confirmed for names it.
        let name = |k: &PublicKey, role: Option<&str>| {
            let claims = || meta.bound.iter().filter(|b| b.key == hex_key(k));
            match claims().find(|b| self.known_key(work, &b.address, &b.key)) {
                Some(b) => b.address.clone(),
                None => match claims().next() {
                    Some(b) => format!("{} (unconfirmed)", b.address),
                    None => format!("{}, not heard from yet", role.unwrap_or("a player")),
                },
            }
        };
        let roles = replay.game().seats();
        match replay.seats() {
            Some(seats) => seats
                .iter()
                .enumerate()
                .map(|(i, k)| name(k, roles.get(i).copied()))
                .collect(),
            None => replay
                .parties()
                .iter()
                .map(|p| name(&p.key, None))
                .collect(),
        }
    }

    /// Names a witnessed game's seats again (a key was confirmed).
    pub(super) fn refresh_seats(&self, work: &mut Work, id: &str) {
        if let Ok(loaded) = self.load(work, id) {
            let mut meta = loaded.meta.clone();
            meta.seats = self.witness_seats(work, &meta, &loaded.replay);
            if meta != loaded.meta {
                self.put_meta(work, &meta);
            }
        }
    }

    /// A witnessed game's turn mail (`X-Yam-Game: ID PLY`) from an
    /// address bound in the game, arrived with neither its record nor its
    /// turn block: a gateway that keeps only the HTML, or a list that strips
    /// attachments. Logged and not answered: the opponent's desk tells its
    /// player to ask for the mail again (`yam resend`), and the game's next
    /// mail catches the robot up (a bound address may bring the events the
    /// robot missed, docs/robot.md). Before this, such a mail went to the
    /// command path and was answered as a command mail without a token.
    /// The robot's own games are not this.
    fn lost_turn(&self, work: &mut Work, key: &str, incoming: &Incoming, from: &str) -> bool {
        let Some((id, ply)) = incoming.named_turn() else {
            return false;
        };
        let Some(meta) = self.meta(work, id) else {
            return false;
        };
        // Whoever sent it: a player bound to no key (her mails carry no
        // card: an earlier Yam) is one, and only Yam writes `X-Yam-Game: ID
        // PLY` (mail clients do not copy it into a reply), so the command
        // path, which would register the sender and mail her a token, is
        // never right for it; a forger's copy is logged and mailed nothing.
        if !meta.witness {
            return false;
        }
        let bound = meta.bound.iter().any(|b| b.address == from);
        work.log.push(format!(
            "{key}: game {id}: the turn mail #{ply} from {from}{} arrived without its turn (its record and turn block were removed on the way); not answered: the game's next mail catches up",
            if bound { "" } else { " (bound to no key of the game)" }
        ));
        true
    }

    /// A mail with no record: a confirmation code handed back, or a card
    /// (its key a candidate for the sender's address). False when it is
    /// neither, or not a personal mail: then it is an ordinary mail.
    fn keys_mail(
        &self,
        work: &mut Work,
        key: &str,
        incoming: &Incoming,
        raw: &[u8],
        from: &str,
    ) -> bool {
        if hygiene::ignore_reason(incoming, raw, &self.address).is_some() {
            return false;
        }
        if self.confirm(work, key, from, &super::body_text(raw)) {
            return true;
        }
        let cards: Vec<Card> = incoming
            .turns
            .iter()
            .map(|t| match t {
                Turn::Attachment { bytes, .. } => bytes.as_slice(),
                Turn::Block(block) => block.payload.as_slice(),
            })
            .filter(|b| is_card(b))
            .filter_map(|b| Card::read(b).ok())
            .collect();
        let Some(card) = cards.first() else {
            return false;
        };
        // A card may bring a mail to its address: counted like a stranger's
        // record, so a flood of cards is cut off like a flood of commands.
        if let Err(why) = hygiene::Limits::new(&self.dir(), &self.settings, &self.counted)
            .read_unauthenticated(from, self.now)
        {
            work.log.push(format!("ignored {key} from {from}: {why}"));
            return true;
        }
        if card.address != from {
            work.log.push(format!(
                "ignored {key} from {from}: a card for {}, not the sender",
                card.address
            ));
            return true;
        }
        let before = work.mails.len();
        self.vouch(work, key, from, &hex_key(&card.key), Source::Card);
        if work.mails.len() == before {
            work.log
                .push(format!("{key}: card of {from}: nothing to confirm"));
        }
        true
    }

    /// Deadlines of a witnessed game: the robot holds no key of it, so it
    /// reminds the party whose step it is, and at the forfeit day tells
    /// the waiting party that a forfeit may be claimed (`yam forfeit`).
    pub(super) fn witness_silence(
        &self,
        work: &mut Work,
        key: &str,
        mut loaded: Loaded,
        reminders: &[u32],
        forfeit: bool,
    ) -> Result<(), String> {
        let id = loaded.meta.id.clone();
        let Some(duty) = next_duty(&loaded.replay) else {
            return Ok(());
        };
        let silent = duty.who();
        // Mail goes only to an address whose key is known: a stranger's
        // game that names someone's address never mails her.
        let address_of = |k: &PublicKey| {
            loaded
                .meta
                .bound
                .iter()
                .find(|b| b.key == hex_key(k) && self.known_key(work, &b.address, &b.key))
                .map(|b| b.address.clone())
        };
        let silent_confirmed = address_of(&silent);
        let silent_address = silent_confirmed
            .clone()
            .or_else(|| {
                loaded
                    .meta
                    .bound
                    .iter()
                    .find(|b| b.key == hex_key(&silent))
                    .map(|b| format!("{} (unconfirmed)", b.address))
            })
            .unwrap_or_else(|| "the player to move".to_owned());
        if forfeit {
            let waiting: Vec<String> = loaded
                .replay
                .parties()
                .iter()
                .filter(|p| p.key != silent)
                .filter_map(|p| address_of(&p.key))
                .collect();
            loaded.meta.note_reminder(self.settings.forfeit);
            if waiting.is_empty() {
                // Recorded as done, so it is said once, not every day.
                work.log.push(format!(
                    "{id}: {silent_address} silent for {} days; nobody of the game has a confirmed address to tell",
                    self.settings.forfeit
                ));
                self.put_meta(work, &loaded.meta);
                return Ok(());
            }
            let text = format!(
                "{id}: {silent_address} has been silent for {} days. The robot holds no key of this game, so it claims nothing: you may now claim a forfeit with\n\n    yam forfeit {id}\n\n(your Yam copies the claim to the robot, which then closes its copy of the game).\n",
                self.settings.forfeit
            );
            self.mail_to(work, key, &loaded.meta, waiting, text);
            work.log.push(format!(
                "{id}: {silent_address} silent for {} days; the other side is told a forfeit may be claimed",
                self.settings.forfeit
            ));
        } else {
            for day in reminders {
                loaded.meta.note_reminder(*day);
                let Some(to) = silent_confirmed.clone() else {
                    work.log.push(format!(
                        "{id}: {silent_address} silent for {day} days; not reminded: no confirmed address"
                    ));
                    continue;
                };
                let text = format!(
                    "Reminder: game {id} has waited for you for {day} days ({}). After {} days of silence your opponent may claim a forfeit.\n\nPlay with your Yam: `yam board {id}`, then `yam move {id} ...` (or `yam read`, which takes the automatic steps).\n",
                    self.status(&loaded, None)
                        .lines()
                        .next()
                        .unwrap_or_default(),
                    self.settings.forfeit
                );
                self.mail_to(work, key, &loaded.meta, vec![to], text);
                work.log
                    .push(format!("{id}: reminded {silent_address} after {day} days"));
            }
        }
        self.put_meta(work, &loaded.meta);
        Ok(())
    }
}
