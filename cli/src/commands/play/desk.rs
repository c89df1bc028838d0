//! The player's desk: configuration, data directory, identity and
//! contacts, loaded once per command; the games of the store, read,
//! verified and written back; and the mail each change sends.

use crate::error::Error;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use yam_notation::{RawGrammar, Record, parse_record, record_to_string};
use yam_referee::fair_play::sign::PublicKey;
use yam_referee::fair_play::turn::SignedEvent;
use yam_referee::signed::prefix::PrefixDigest;
use yam_referee::signed::tip::{After, Bounds, replay_after, replay_continued};
use yam_referee::signed::write::{AppendedInPlace, append_events, append_verified_to_text};
use yam_referee::signed::{Checkpoint, Known, SharedBytes, SignedReplay, SignedText, Tip};

use crate::config::Config;
use crate::game::checkpoint;
use crate::game::record::{checked_continuation, stored_events_and_record, verified_with_view};
use crate::game::rulesets::RecordRulesets;
use crate::game::secrets::{Identity, Secrets};
use crate::game::silence::SilenceClock;
use crate::mail::compose::{Automatic, Picture, TurnMail, compose};
use crate::mail::transport;
use crate::store::{LockedGame, Store};

use crate::config::Where;
use crate::mail::cards::{Card, Contacts};
use crate::mail::notice::NoticeKind;

/// Everything a command needs.
#[derive(Debug)]
pub struct Desk {
    /// The configuration.
    pub config: Config,
    /// The data directory.
    pub store: Store,
    /// The secrets directory.
    pub secrets: Secrets,
    /// My identity.
    pub me: Identity,
    /// Whether the identity was made by this command.
    pub new_identity: bool,
    /// The players I know.
    pub contacts: Contacts,
}

impl Desk {
    /// Opens the desk.
    pub fn open(place: &Where) -> Result<Desk, Error> {
        let data = place.data_dir();
        let config_path = place.config_file();
        if !config_path.exists() {
            return Err(Error::usage(format!(
                "{}: no configuration; write one (see docs/mail.md: identity and mail accounts) or name it with --config",
                config_path.display()
            )));
        }
        let config = Config::load(&config_path).map_err(|e| Error::usage(e.to_string()))?;
        if crate::store::owner(&data) == Some(crate::store::Owner::Robot) {
            return Err(Error::usage(format!(
                "{}: this is a referee robot's store (robot/), not a desk: a desk needs a data directory of its own (--data-dir, $YAM_DATA_DIR)",
                data.display()
            )));
        }
        let store = Store::open(&data).map_err(|e| Error::usage(e.to_string()))?;
        let secrets =
            Secrets::open(&store.secrets_dir()).map_err(|e| Error::usage(e.to_string()))?;
        // A key is drawn for the configuration's identity only when the
        // secrets hold none yet (a desk's first use): a name they do not
        // hold beside others is a mistake in the configuration (`key: Bo`
        // for `bo`), and a key drawn silently for it signed nothing of the
        // desk's games, which then looked as if they waited on a stranger,
        // and went out on the desk's cards
        // (`directory::a_key_name_the_secrets_do_not_hold_is_said_not_drawn_silently_over_a_desk_with_games`).
        let held = secrets
            .identity_names()
            .map_err(|e| Error::usage(e.to_string()))?;
        if !held.is_empty() && !held.contains(&config.identity.key) {
            return Err(Error::usage(format!(
                "{}: the identity key {:?} is not in the secrets directory {}, which holds {}: name one of them in `identity: key` (a new key is drawn only for a desk that has none yet)",
                config_path.display(),
                config.identity.key,
                store.secrets_dir().display(),
                held.iter()
                    .map(|n| format!("{n:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        let (me, new_identity) = secrets
            .identity(&config.identity.key)
            .map_err(|e| Error::usage(e.to_string()))?;
        let contacts = Contacts::open(&data).map_err(|e| Error::usage(e.to_string()))?;
        Ok(Desk {
            config,
            store,
            secrets,
            me,
            new_identity,
            contacts,
        })
    }

    /// My address, in its normal form (what my card says and what a
    /// mail from me is compared with).
    pub fn address(&self) -> String {
        crate::mail::address::normal(&self.config.identity.address)
    }

    /// My card.
    pub fn card(&self) -> Card {
        Card {
            name: self.config.identity.name.clone(),
            address: self.address(),
            key: self.me.key.public_key(),
            issued: now(),
        }
    }

    /// Moves every game whose opponent writes from `from` to `to` (the
    /// opponent's signed card moved them); the games moved.
    ///
    /// Only each game's bookkeeping is read and written (not its record),
    /// and a game that cannot be is named in the second list and passed
    /// over, not a reason to stop: stopping at a damaged game left the
    /// games after it with the old address while the contact had moved,
    /// and the card, read again once the game was mended, was "the key
    /// known" and moved nothing, so every later turn from the new address
    /// was refused
    /// (`directory::a_move_card_refused_over_a_damaged_game_still_moves_the_games_once_it_is_mended`).
    pub fn move_opponent(
        &self,
        from: &[String],
        to: &str,
    ) -> Result<(Vec<String>, Vec<String>), Error> {
        let mut moved = Vec::new();
        let mut failed = Vec::new();
        for id in self
            .store
            .games()
            .map_err(|e| Error::usage(e.to_string()))?
        {
            let moved_one = (|| -> Result<bool, Error> {
                let locked = self
                    .store
                    .lock(&id)
                    .map_err(|e| Error::usage(e.to_string()))?;
                let mut meta = read_meta(&locked)?;
                if !from
                    .iter()
                    .any(|f| crate::mail::address::same(&meta.opponent, f))
                {
                    return Ok(false);
                }
                meta.opponent = to.to_owned();
                let text =
                    serde_yaml_ng::to_string(&meta).map_err(|e| Error::usage(e.to_string()))?;
                crate::store::atomic::write(&locked.dir().join("mail.yaml"), text.as_bytes(), true)
                    .map_err(|e| {
                        Error::usage(format!("cannot write the game's bookkeeping: {e}"))
                    })?;
                Ok(true)
            })();
            match moved_one {
                Ok(true) => moved.push(id),
                Ok(false) => {}
                Err(e) => failed.push(format!("{id} ({e})")),
            }
        }
        Ok((moved, failed))
    }

    /// My key.
    pub fn key(&self) -> PublicKey {
        self.me.key.public_key()
    }

    /// The name a key goes by: mine, a contact's, or its fingerprint.
    pub fn name_of(&self, key: &PublicKey) -> String {
        if *key == self.key() {
            return self.config.identity.name.clone();
        }
        self.contacts
            .by_key(key)
            .map_or_else(|| key.fingerprint().to_string(), |c| c.name.clone())
    }

    /// The names the parties `keys` go by now, by public key (hex): what a
    /// new game fixes as its players' names ([`MailMeta::names`]).
    pub fn names_of(&self, keys: &[PublicKey]) -> BTreeMap<String, String> {
        keys.iter()
            .map(|k| (hex::encode(k.as_bytes()), self.name_of(k)))
            .collect()
    }

    /// Sends a mail to `to` (an address) and returns its raw bytes.
    pub fn send(&self, mail: &Outbound<'_>) -> Result<Vec<u8>, Error> {
        let outgoing = self
            .config
            .outgoing
            .as_ref()
            .ok_or_else(|| {
                Error::usage(
                    "no outgoing mail is configured (outgoing: smtp, sendmail or directory)",
                )
            })?
            .transport()
            .map_err(|e| Error::usage(e.to_string()))?;
        let message = self.compose(mail)?;
        transport::send(&outgoing, &message).map_err(|e| Error::usage(e.to_string()))?;
        Ok(message.formatted())
    }

    /// Builds a mail to `to` without sending it.
    pub fn compose(&self, mail: &Outbound<'_>) -> Result<lettre::Message, Error> {
        let from = format!("{} <{}>", self.config.identity.name, self.address())
            .parse()
            .map_err(|e| Error::usage(format!("my address {:?}: {e}", self.address())))?;
        let to = mail
            .to
            .parse()
            .map_err(|e| Error::usage(format!("the address {:?}: {e}", mail.to)))?;
        let message = compose(&TurnMail {
            from,
            to: vec![to],
            game_name: mail.game_name,
            game_id: mail.game_id,
            ply: mail.ply,
            players: mail.players,
            body: mail.body,
            turn: mail.payload,
            record: mail.attachment.unwrap_or(mail.payload),
            message_id: mail.message_id.clone(),
            thread: mail.thread,
            automatic: mail.automatic,
            reminder: mail.reminder,
            picture: mail.picture,
            referee: match mail.referee {
                Some(r) => Some(
                    r.parse()
                        .map_err(|e| Error::usage(format!("the referee's address {r:?}: {e}")))?,
                ),
                None => None,
            },
            // The robot binds my address to my key only on a card my key
            // signed naming it (`X-Yam-Card`, docs/robot.md).
            card: mail.referee.map(|_| self.card().signed_text(&self.me.key)),
        })
        .map_err(|e| Error::usage(format!("cannot build the mail: {e}")))?;
        Ok(message)
    }
}

/// A mail to send.
#[derive(Debug)]
pub struct Outbound<'a> {
    /// The recipient's address.
    pub to: &'a str,
    /// The game's name, for the subject.
    pub game_name: &'a str,
    /// The game's id (or `card`).
    pub game_id: &'a str,
    /// The ply (or the card's kind).
    pub ply: u32,
    /// The players.
    pub players: &'a [String],
    /// The text for the reader.
    pub body: &'a str,
    /// The armored payload.
    pub payload: &'a [u8],
    /// The attached record, when not the payload.
    pub attachment: Option<&'a [u8]>,
    /// A stable Message-ID.
    pub message_id: String,
    /// The thread so far.
    pub thread: &'a [String],
    /// Whether a person wrote it (RFC 3834).
    pub automatic: Automatic,
    /// The game's referee robot, copied on the mail.
    pub referee: Option<&'a str>,
    /// A reminder (its number): its own Message-ID and subject.
    pub reminder: Option<u32>,
    /// The board as a picture, for the mail's HTML side (turn mails).
    pub picture: Option<&'a Picture>,
}

/// What Yam keeps beside a mail game's record.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MailMeta {
    /// The opponent's address.
    pub opponent: String,
    /// The Message-IDs of the game's mails, oldest first.
    #[serde(default)]
    pub thread: Vec<String>,
    /// When the game last changed (seconds since 1970, UTC).
    #[serde(default)]
    pub changed: u64,
    /// Since when the move or the answer the game waits for is due
    /// (`move_due_since`, `answer_due_since`): offers and answers do not
    /// restart a move's silence ([`SilenceClock`]).
    #[serde(flatten)]
    pub silence: SilenceClock,
    /// The silence clock as it stood before this process's last change
    /// ([`MailMeta::changed_by`]), for the outbox to keep: not written.
    #[serde(skip)]
    pub stepped_from: Option<SilenceClock>,
    /// Days of silence after which a forfeit may be claimed.
    #[serde(default = "default_days")]
    pub forfeit_days: u32,
    /// Reminders sent since the last change.
    #[serde(default)]
    pub reminders: u32,
    /// The referee robot's address: every mail of the game goes to it too
    /// (Cc), so it keeps a witnessed copy of the record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub referee: Option<String>,
    /// The mail of the last step, stored with it before it is sent, until
    /// it is sent: a mail that could not go out is sent by the next `yam
    /// read`, `yam send` or `yam resend`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outbox: Option<Outbox>,
    /// The challenge was declined or withdrawn before the game started:
    /// nothing more is played.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed: Option<Closed>,
    /// The name each party went by at the challenge, by public key (hex):
    /// mine, and the opponent's from their card. The record's player tags
    /// are written from these, once each, when the seats are known, so
    /// both desks write the same names whatever cards come later. Empty
    /// for a game stored by an earlier Yam, whose names are those known
    /// when the seats are settled.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub names: BTreeMap<String, String>,
    /// The opponent's resignation that crossed my step in the mail and is
    /// void (`docs/fair-play.md`, 3.10): her next event must be that
    /// resignation signed again, since a resignation is not taken back by
    /// crossing. Absent when none is owed (and in games of an earlier
    /// build, which knew no crossing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resignation_owed: Option<ResignationOwed>,
}

/// A resignation owed again after a crossing ([`MailMeta::resignation_owed`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResignationOwed {
    /// The resigner's key, in hex.
    pub key: String,
    /// The file beside the game that keeps her void resignation.
    pub evidence: String,
}

/// A challenge declined or withdrawn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Closed {
    /// Declined or withdrawn.
    pub kind: NoticeKind,
    /// Who closed it (the name the desk knows them by).
    pub by: String,
    /// When this desk learnt it (seconds since 1970, UTC).
    pub at: u64,
    /// Their reason.
    pub reason: String,
    /// The signed notice, as evidence.
    pub notice: String,
    /// Whether I closed it; if so, whether its mail is sent.
    #[serde(default)]
    pub mine: bool,
    /// Whether my notice's mail went out (a failed send is retried by
    /// `yam send`, `yam read` and `yam resend`).
    #[serde(default)]
    pub sent: bool,
}

impl Closed {
    /// In words: "declined by Bo on 2026.12.01 (not this month)".
    pub fn describe(&self) -> String {
        format!(
            "The challenge was {} by {} on {}{}.",
            self.kind.done(),
            self.by,
            crate::game::header::date_tag(self.at),
            if self.reason.is_empty() {
                String::new()
            } else {
                format!(": {}", self.reason)
            }
        )
    }
}

/// A mail waiting to be sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outbox {
    /// What its text says happened.
    pub news: String,
    /// Whether Yam sent it by itself (an automatic step).
    #[serde(default)]
    pub automatic: bool,
    /// The silence clock before the step (of the first step whose mail
    /// waits, when several do): a late mail moves on only the clocks its
    /// step started or resumed ([`MailMeta::sent_late`]). Absent in an
    /// outbox of an earlier build: then only a clock the step started is
    /// moved, as that build moved it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub silence_before: Option<SilenceClock>,
}

impl MailMeta {
    /// The game changed now, by `events`, into `after`.
    pub fn changed_by(&mut self, events: &[SignedEvent], after: &SignedReplay) {
        // Never before the change before: a clock set back (a laptop
        // booted a year behind, a virtual machine restored) would start
        // the opponent's silence in a past the game never had, and the
        // next day a forfeit would be claimed for a move a day old.
        let now = now().max(self.changed);
        self.stepped_from = Some(self.silence);
        self.silence.step(events, after, now, self.changed);
        self.changed = now;
        self.reminders = 0;
    }
}

impl MailMeta {
    /// The mail of the last change went out only now, from the outbox (a
    /// send that failed and was tried again), and the step's clock was
    /// `before` the step: the silence that change started for the opponent
    /// starts now, since they could not answer a turn still in this desk's
    /// outbox; and a silence the change resumed (an answer to the mover's
    /// offer, which ends the days he waited and gives him back his move's
    /// clock) resumes later by as much, since the mover could not move on
    /// before he had the answer. A clock the step left as it was (the
    /// mover's, when the step was an offer made to him: he could move all
    /// the same) is not moved.
    pub fn sent_late(&mut self, now: u64, before: Option<&SilenceClock>) {
        let changed = self.changed;
        if now <= changed {
            return;
        }
        let late = now - changed;
        for (since, was) in [
            (
                &mut self.silence.move_due_since,
                before.map(|b| b.move_due_since),
            ),
            (
                &mut self.silence.answer_due_since,
                before.map(|b| b.answer_due_since),
            ),
        ] {
            match *since {
                Some(start) if start == changed => *since = Some(now),
                Some(start) if was.is_some_and(|was| was != Some(start)) => {
                    *since = Some(start.saturating_add(late).min(now));
                }
                _ => {}
            }
        }
        self.changed = now;
    }
}

impl MailMeta {
    /// The mail whose events were just taken says it was sent at
    /// `sent_at`: a move those events made this desk's player owe is owed
    /// from then, not from the reading,
    /// bounded by the change before (`before`) and the reading: a turn
    /// read a month late (a laptop asleep on a holiday) was shown as
    /// "waiting for you 0 day(s)" while the sender's desk counted 30.
    /// The `Date` is the sender's clock: bounded so, a false one can only
    /// make the reader's own wait look longer, never the sender's.
    ///
    /// Only a move owed by the reader is moved so: an answer's start moves
    /// the mover's credit for the days it waited (`SilenceClock::step`),
    /// and an offer dated early would have bought its sender days off his
    /// own move's silence on the reader's desk.
    pub fn owed_since_sent(&mut self, before: u64, sent_at: u64) {
        let changed = self.changed;
        let at = sent_at.clamp(before.min(changed), changed);
        if at < changed
            && self.silence.answer_due_since.is_none()
            && self.silence.move_due_since == Some(changed)
        {
            self.silence.move_due_since = Some(at);
        }
    }
}

impl Game {
    /// Since when the party the game waits for has been silent.
    pub fn silent_since(&self) -> u64 {
        self.meta.silence.silent_since(self.meta.changed)
    }
}

fn default_days() -> u32 {
    40
}

/// Seconds since 1970 now, or as `YAM_NOW` (seconds) says: tests drive the
/// clock through it.
pub fn now() -> u64 {
    if let Some(s) = std::env::var("YAM_NOW").ok().and_then(|v| v.parse().ok()) {
        return s;
    }
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A game of the store, locked, read and verified.
#[derive(Debug)]
pub struct Game {
    /// The lock, held while the value lives.
    pub locked: LockedGame,
    /// The record.
    pub record: Record<String>,
    /// Its replay, verified.
    pub replay: SignedReplay,
    /// The mail bookkeeping.
    pub meta: MailMeta,
    /// The last text verified of the game, whose walk the record about to
    /// be written continues.
    base: Option<Base>,
    /// The game kept as its text (when it was read through its tip): the
    /// record then holds the header only, new events are printed after the
    /// text, and the text is checked from its tip's replay before it is
    /// written (`docs/fair-play.md`, 9.11).
    kept: Option<Kept>,
}

/// A game kept as its text; see [`Game::kept`].
#[derive(Debug)]
struct Kept {
    /// The record's text as it stands (shared: once verified, it is also
    /// the text the next one continues, and the text written).
    text: Rc<String>,
    /// Its bounds, if new events can be printed after it.
    bounds: Option<Bounds>,
    /// The text it continues, verified: its bounds and its replay.
    from: (FromText, Bounds, SignedReplay),
    /// The SHA-256 digest of the first bytes of the text the game was
    /// restored with from its tip (which `text` and every text continued
    /// from it share, up to that text's cut): the next tip is written from
    /// it (`Tip::write`).
    digest: PrefixDigest,
}

/// The verified text a kept game's text continues ([`Kept::from`]).
#[derive(Debug)]
enum FromText {
    /// That text, whole.
    Text(Rc<String>),
    /// That text, appended to in its own buffer (the stored text a turn
    /// mail's events were appended to): its first `cut` bytes are the
    /// text's own, and what it ended with after them is kept here.
    InPlace(AppendedInPlace),
}

/// The desk's tip of a game (`docs/fair-play.md`, 9.11), beside its record
/// and checkpoint.
fn tip_path(locked: &LockedGame) -> PathBuf {
    locked.dir().join("tip")
}

/// A signed view and its replay: a record written after it is checked
/// from there (`record::checked_continuation`), not replayed whole again.
#[derive(Debug)]
struct Base {
    signed: SignedText,
    /// The replay of `signed`; `None` while it is the game's own (no event
    /// appended since).
    replay: Option<SignedReplay>,
}

fn record_path(locked: &LockedGame) -> PathBuf {
    locked.dir().join("record.yam")
}

/// The desk's verified checkpoint of a game (`crate::game::checkpoint`),
/// beside its record: kept at every save, and written on the first
/// reading of a game stored before checkpoints (verified whole then).
fn checkpoint_path(locked: &LockedGame) -> PathBuf {
    locked.dir().join("checkpoint")
}

/// A stored game, locked, before its record is replayed: what reading a
/// turn mail needs of it (its signed events, to be met again in the mail's
/// record) costs no replay of its own.
#[derive(Debug)]
pub struct Stored {
    /// The lock, held while the value lives.
    pub locked: LockedGame,
    /// The record's bytes.
    pub text: Vec<u8>,
    /// The mail bookkeeping.
    pub meta: MailMeta,
    /// The record as read by [`Stored::events`], for a continuation to
    /// append to without reading it again.
    pub record: Option<Record<String>>,
}

/// A game's bookkeeping (`mail.yaml`; none yet, an absent file, is the
/// default). A file there that cannot be read stops the command: taken
/// for none, its outbox, thread and clocks would be written over.
fn read_meta(locked: &LockedGame) -> Result<MailMeta, Error> {
    let meta_path = locked.dir().join("mail.yaml");
    match std::fs::read_to_string(&meta_path) {
        Ok(text) => serde_yaml_ng::from_str(&text)
            .map_err(|e| Error::usage(format!("{}: {e}", meta_path.display()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(MailMeta::default()),
        Err(e) => Err(Error::usage(format!(
            "{}: cannot be read: {e}",
            meta_path.display()
        ))),
    }
}

/// Whether the bookkeeping holds a mail to send: a turn left in the outbox
/// by a send that failed, or my signed notice closing the game, unsent.
fn mail_waiting(meta: &MailMeta) -> bool {
    meta.outbox.is_some() || meta.closed.as_ref().is_some_and(|c| c.mine && !c.sent)
}

/// Writes a game's bookkeeping `meta` by `write`, keeping the store's index
/// of games with mail waiting ([`crate::store::Store::waiting`]) true to
/// it: a game's marker is made, durably, before the bookkeeping says a
/// mail waits (a crash never leaves a waiting mail out of the index), and
/// removed after it says none does (a marker left by a crash costs one
/// look). `yam read` and `yam send` read the index, not every game's
/// bookkeeping: at 1,000 games a turn mail's read paid 2,000 reads and
/// 1,000 locks to learn that nothing waited.
fn with_waiting_noted(
    locked: &LockedGame,
    meta: &MailMeta,
    write: impl FnOnce() -> Result<(), Error>,
) -> Result<(), Error> {
    let waiting = mail_waiting(meta);
    if waiting {
        crate::store::note_waiting(locked.dir(), true)
            .map_err(|e| Error::usage(format!("{}: {e}", locked.dir().display())))?;
    }
    write()?;
    if !waiting {
        let _ = crate::store::note_waiting(locked.dir(), false);
    }
    Ok(())
}

impl Stored {
    /// Locks and reads the game `id`.
    pub fn open(store: &Store, id: &str) -> Result<Stored, Error> {
        let locked = store.lock(id).map_err(|e| Error::usage(e.to_string()))?;
        let text = locked.record().map_err(|e| Error::usage(e.to_string()))?;
        let meta = read_meta(&locked)?;
        Ok(Stored {
            locked,
            text,
            meta,
            record: None,
        })
    }

    /// Writes the bookkeeping only.
    pub fn save_meta(&self) -> Result<(), Error> {
        let meta = serde_yaml_ng::to_string(&self.meta).map_err(|e| Error::usage(e.to_string()))?;
        with_waiting_noted(&self.locked, &self.meta, || {
            crate::store::atomic::write(&self.locked.dir().join("mail.yaml"), meta.as_bytes(), true)
                .map_err(|e| Error::usage(format!("cannot write the game's bookkeeping: {e}")))
        })
    }

    /// Whether a mail waits to be sent (a turn left in the outbox by a send
    /// that failed, or the signed notice closing the game): read from the
    /// bookkeeping alone, so that a desk looking for waiting mail at every
    /// `yam read` replays only the games that have some, not every game
    /// it keeps.
    pub fn has_waiting_mail(&self) -> bool {
        mail_waiting(&self.meta)
    }

    /// Whether game `id` has a mail waiting to be sent, read from its
    /// bookkeeping alone: a desk asks it of every game at every `yam
    /// read`, and opens (reads the record of) only those that have one.
    pub fn mail_waits(store: &Store, id: &str) -> Result<bool, Error> {
        let locked = store.lock(id).map_err(|e| Error::usage(e.to_string()))?;
        Ok(mail_waiting(&read_meta(&locked)?))
    }

    /// The signed events of the stored record, decoded but not replayed;
    /// the record, read in the same pass, is kept in [`Stored::record`].
    pub fn events(&mut self) -> Result<Vec<SignedEvent>, Error> {
        // The stored file named: a mail's refusal must not read as the
        // mail's own record failing.
        let (events, record) = stored_events_and_record(&self.text)
            .map_err(|e| Error::usage(format!("{}: {e}", record_path(&self.locked).display())))?;
        self.record = record;
        Ok(events)
    }

    /// The stored record's replay and bounds from the game's tip, and the
    /// digest of the text's first bytes, if the tip is one of exactly the
    /// stored text.
    pub fn tip(&self) -> Option<(SignedReplay, Bounds, PrefixDigest)> {
        self.tip_of(std::str::from_utf8(&self.text).ok()?)
    }

    /// As [`Stored::tip`], with the stored text already checked as UTF-8
    /// (`text` is [`Stored::text`]).
    pub fn tip_of(&self, text: &str) -> Option<(SignedReplay, Bounds, PrefixDigest)> {
        let tip: SharedBytes =
            std::sync::Arc::new(checkpoint::read_tip(&tip_path(&self.locked), text.len())?);
        let catalog = RecordRulesets::beside(&record_path(&self.locked));
        Tip::restore(&tip, text, &catalog)
    }

    /// The game made of this stored one, restored from its tip (`before`,
    /// `bounds`, `digest`), and its text: the stored text itself (a game
    /// opened from its tip; `appended` `None`), or the stored text with a
    /// record's new events appended in its own buffer (`appended`:
    /// `Stored::text` is then the new text), verified to continue it
    /// (`replay` is the replay of the text, `new_bounds` its bounds). The
    /// record holds the header only; the text is checked from the stored
    /// one's replay before it is written.
    pub fn continued(
        self,
        before: SignedReplay,
        bounds: Bounds,
        digest: PrefixDigest,
        appended: Option<AppendedInPlace>,
        new_bounds: Option<Bounds>,
        replay: SignedReplay,
    ) -> Result<Game, Error> {
        let text = Rc::new(
            String::from_utf8(self.text)
                .map_err(|_| Error::usage("the stored record is not UTF-8"))?,
        );
        let from = match appended {
            Some(appended) => FromText::InPlace(appended),
            None => FromText::Text(Rc::clone(&text)),
        };
        let record = header_record(&text, new_bounds.or(Some(bounds)))?;
        Ok(Game {
            locked: self.locked,
            record,
            replay,
            meta: self.meta,
            base: None,
            kept: Some(Kept {
                text,
                bounds: new_bounds,
                from: (from, bounds, before),
                digest,
            }),
        })
    }

    /// The game's verified checkpoint, if one is kept.
    pub fn checkpoint(&self) -> Option<Checkpoint> {
        checkpoint::read(&checkpoint_path(&self.locked))
    }

    /// The game, replayed: restored from its tip when the tip is one of
    /// exactly the stored text (`docs/fair-play.md`, 9.11); else through
    /// its verified checkpoint (the events it vouches for are not checked
    /// for their signatures again, all else is), or verified whole when
    /// there is none or it does not match, and the checkpoint and the tip
    /// then written.
    pub fn replay(self) -> Result<Game, Error> {
        // Its tip, if it is one of exactly the stored text: the game kept
        // as its text, nothing read but its header.
        if let Some((replay, bounds, digest)) = self.tip() {
            return self.continued(replay.clone(), bounds, digest, None, Some(bounds), replay);
        }
        let path = record_path(&self.locked);
        let kept = self.checkpoint();
        let (record, signed, replay) =
            verified_with_view(&self.text, &path, checkpoint::known(kept.as_ref()))
                .map_err(|e| Error::usage(format!("{}: {e}", path.display())))?;
        checkpoint::warn_unkept(checkpoint::keep(
            &checkpoint_path(&self.locked),
            kept.as_ref(),
            &replay,
        ));
        if let Ok(text) = std::str::from_utf8(&self.text) {
            checkpoint::warn_unkept(checkpoint::keep_tip(
                &tip_path(&self.locked),
                &replay,
                text,
                Bounds::of(text, &signed),
                None,
            ));
        }
        Ok(Game {
            locked: self.locked,
            record,
            replay,
            meta: self.meta,
            base: Some(Base {
                signed,
                replay: None,
            }),
            kept: None,
        })
    }
}

impl Game {
    /// Locks and reads the game `id`.
    pub fn open(store: &Store, id: &str) -> Result<Game, Error> {
        Stored::open(store, id)?.replay()
    }

    /// The game made of a stored one and a record that continues it,
    /// verified by the caller: `replay` is the replay of `signed`, the
    /// signed view of the record received (its items are those the
    /// continued record will hold, unless the texts spell a move
    /// differently: then the record is checked whole when it is saved).
    pub fn adopt(
        stored: Stored,
        record: Record<String>,
        signed: SignedText,
        replay: SignedReplay,
    ) -> Game {
        Game {
            locked: stored.locked,
            record,
            replay,
            meta: stored.meta,
            base: Some(Base {
                signed,
                replay: None,
            }),
            kept: None,
        }
    }

    /// The whole record: the record itself, or, for a game kept as its
    /// text, the text read as one (for what needs its moves and prose: a
    /// turn mail's body and picture).
    pub fn whole_record(&self) -> Result<std::borrow::Cow<'_, Record<String>>, Error> {
        match &self.kept {
            None => Ok(std::borrow::Cow::Borrowed(&self.record)),
            Some(kept) => parse_record::<RawGrammar>(&kept.text)
                .map(std::borrow::Cow::Owned)
                .map_err(|e| Error::usage(format!("internal error: the record: {e}"))),
        }
    }

    /// Leaves the text: the record read whole from it, to be printed whole
    /// again (a header that changes).
    fn unkeep(&mut self) -> Result<(), Error> {
        if let Some(kept) = self.kept.take() {
            self.record = parse_record::<RawGrammar>(&kept.text)
                .map_err(|e| Error::usage(format!("internal error: the record: {e}")))?;
            // The record written next is checked whole.
            self.base = None;
        }
        Ok(())
    }

    /// The game's id.
    pub fn id(&self) -> String {
        self.record.tags.get("GameId").unwrap_or("").to_owned()
    }

    /// The record's text.
    pub fn text(&self) -> String {
        match &self.kept {
            Some(kept) => kept.text.to_string(),
            None => record_to_string::<RawGrammar>(&self.record),
        }
    }

    /// Appends `events` (already proven by the harness) to the record, with
    /// `prose` after the first turn with moves, and the player tags set.
    pub fn append(
        &mut self,
        events: &[SignedEvent],
        prose: Option<&str>,
        desk: &Desk,
    ) -> Result<(), Error> {
        if let Some(kept) = &mut self.kept
            && let Some(bounds) = kept.bounds
        {
            let from = self.replay.events().len();
            let mut after = self.replay.clone();
            for event in events {
                after
                    .push(event)
                    .map_err(|e| Error::usage(format!("internal error: {e}")))?;
            }
            if let Some(text) = append_verified_to_text(&kept.text, bounds, &after, from, prose) {
                kept.bounds = Bounds::after_append(&text, bounds.movetext);
                kept.text = Rc::new(text);
                self.replay = after;
                self.name_players(desk);
                self.meta.changed_by(events, &self.replay);
                return Ok(());
            }
        }
        self.unkeep()?;
        let after = append_events(&mut self.record, &self.replay, events, prose)
            .map_err(|e| Error::usage(format!("internal error: {e}")))?;
        let before = std::mem::replace(&mut self.replay, after);
        // The base's replay was the game's: it stays the base's.
        if let Some(base @ Base { replay: None, .. }) = &mut self.base {
            base.replay = Some(before);
        }
        self.name_players(desk);
        self.meta.changed_by(events, &self.replay);
        Ok(())
    }

    /// Writes the players' names into the record's seat tags once the
    /// seats are known (see [`set_player_tags`]): after every event this
    /// desk appends, and after every event it reads, so the desk that
    /// only reads the seat draw names the players as the one that made
    /// it does.
    pub fn name_players(&mut self, desk: &Desk) {
        let names = self.meta.names.clone();
        let name = |key: &PublicKey| {
            names
                .get(&hex::encode(key.as_bytes()))
                .cloned()
                .unwrap_or_else(|| desk.name_of(key))
        };
        if self.kept.is_some() {
            // The header alone: if a name changes it, the record is
            // printed whole.
            let mut header = self.record.clone();
            set_player_tags(&mut header, &self.replay, name);
            if header.tags == self.record.tags {
                return;
            }
            if self.unkeep().is_err() {
                return;
            }
        }
        set_player_tags(&mut self.record, &self.replay, name);
    }

    /// Writes the record and the bookkeeping (each atomically), after
    /// verifying the record's text once more as a whole.
    pub fn save(&mut self) -> Result<(), Error> {
        let text = self.checked_text()?;
        let meta = self.meta_text()?;
        with_waiting_noted(&self.locked, &self.meta, || {
            crate::store::atomic::write_many(&[
                (&self.locked.dir().join("mail.yaml"), meta.as_bytes()),
                (&record_path(&self.locked), text.as_bytes()),
            ])
            .map_err(|e| Error::usage(format!("{}: {e}", self.locked.dir().display())))
        })?;
        // After the record: a crash between leaves an older checkpoint,
        // which still matches the new record's first events (and an older
        // tip, which is of another text, so no tip).
        checkpoint::warn_unkept(checkpoint::keep(
            &checkpoint_path(&self.locked),
            None,
            &self.replay,
        ));
        let bounds = match &self.kept {
            Some(kept) => kept.bounds,
            None => self
                .base
                .as_ref()
                .and_then(|b| Bounds::of(&text, &b.signed)),
        };
        let written = checkpoint::keep_tip(
            &tip_path(&self.locked),
            &self.replay,
            &text,
            bounds,
            self.kept.as_ref().map(|kept| &kept.digest),
        );
        // The next tip of this game in this process (a step Yam takes by
        // itself after the turn) continues from this one.
        if let (Ok(Some(digest)), Some(kept)) = (&written, &mut self.kept) {
            kept.digest = digest.clone();
        }
        checkpoint::warn_unkept(written);
        Ok(())
    }

    /// The record's text, verified once more as a whole before it is
    /// written (what is known is only what this replay holds), from the
    /// last text verified of the game when it continues it. The text
    /// verified becomes the base of the next.
    pub fn checked_text(&mut self) -> Result<Rc<String>, Error> {
        if let Some(kept) = &self.kept {
            let (from_text, from_bounds, from_replay) = &kept.from;
            let known = Known::Log(self.replay.events());
            let after = match from_text {
                FromText::Text(from_text) => {
                    replay_after(&kept.text, from_text, *from_bounds, from_replay, known)
                }
                // The text's first `cut` bytes are the stored text's own,
                // read and bound to its tip; every append after keeps them.
                FromText::InPlace(appended) => {
                    replay_continued(&kept.text, appended, from_replay, known)
                }
            };
            if let After::Replayed { replay, bounds } = after {
                // The text verified becomes the base of the next (its
                // replay is the game's: `self.replay`, verified again).
                let text = Rc::clone(&kept.text);
                let from = (
                    FromText::Text(Rc::clone(&text)),
                    bounds.unwrap_or(*from_bounds),
                    *replay,
                );
                if let Some(kept) = &mut self.kept {
                    kept.from = from;
                    kept.bounds = bounds;
                }
                if bounds.is_none() {
                    self.unkeep()?;
                }
                return Ok(text);
            }
            // A defect of Yam's own printing: printed whole and checked
            // whole, which says what is wrong.
            self.unkeep()?;
        }
        let text = self.text();
        let from = self
            .base
            .as_ref()
            .map(|base| (&base.signed, base.replay.as_ref().unwrap_or(&self.replay)));
        let (signed, _) =
            checked_continuation(&text, &record_path(&self.locked), &self.replay, from).map_err(
                |e| {
                    Error::usage(format!(
                        "internal error: the new record does not verify: {e}"
                    ))
                },
            )?;
        // `self.replay` is the replay of exactly these events.
        self.base = Some(Base {
            signed,
            replay: None,
        });
        Ok(Rc::new(text))
    }

    fn meta_text(&self) -> Result<String, Error> {
        serde_yaml_ng::to_string(&self.meta).map_err(|e| Error::usage(e.to_string()))
    }

    /// Writes the bookkeeping only.
    pub fn save_meta(&self) -> Result<(), Error> {
        let meta = self.meta_text()?;
        with_waiting_noted(&self.locked, &self.meta, || {
            crate::store::atomic::write(&self.locked.dir().join("mail.yaml"), meta.as_bytes(), true)
                .map_err(|e| Error::usage(format!("cannot write the game's bookkeeping: {e}")))
        })
    }

    /// The players' names, first seat first, as they may be shown (a
    /// terminal, a mail's subject): a seat tag is no part of what is
    /// signed, and a challenger's header writes it, escape sequences and
    /// right-to-left overrides included, so every control character is a
    /// picture and every invisible one a replacement
    /// ([`crate::diagnostics::visible`]).
    pub fn players(&self) -> Vec<String> {
        let kind = self.record.game();
        kind.map(|k| {
            k.player_tags()
                .iter()
                .map(|t| crate::diagnostics::visible(self.record.tags.get(t).unwrap_or("?")))
                .collect()
        })
        .unwrap_or_default()
    }

    /// The Message-ID of the mail that sends the game as it stands: a
    /// function of the game and its last event, so a resent turn carries
    /// the same one and the opponent sees a duplicate.
    fn message_id(&self, desk: &Desk) -> String {
        let events = self.replay.events().len();
        let last = self
            .replay
            .events()
            .last()
            .map(|e| e.hash().to_hex())
            .unwrap_or_default();
        let address = desk.address();
        let domain = address.rsplit('@').next().unwrap_or("yam");
        format!(
            "yam.{}.{events}.{}@{domain}",
            self.id(),
            &last[..12.min(last.len())]
        )
    }

    /// Threads the mail about to be sent into the bookkeeping, so that the
    /// [`Game::save`] before sending writes the bookkeeping once, and
    /// [`Game::mail`] need not write it again (one file and its syncs
    /// fewer for every turn).
    pub fn thread_next_mail(&mut self, desk: &Desk) {
        let message_id = self.message_id(desk);
        crate::mail::thread::add(&mut self.meta.thread, &message_id);
    }

    /// Sends the record to the opponent: the body says what happened and
    /// whose turn it is. Records the Message-ID in the thread (unless
    /// [`Game::thread_next_mail`] did before the game was saved) and keeps
    /// a copy of the raw mail (`last-sent.eml`).
    pub fn mail(&mut self, desk: &Desk, news: &str, automatic: Automatic) -> Result<(), Error> {
        self.send_mail(desk, news, automatic, None)
    }

    /// Stores the mail of the step just taken with the game (the next
    /// [`Game::save`] writes it with the record), so that it is sent even
    /// if sending fails now.
    pub fn queue_mail(&mut self, desk: &Desk, news: &str, automatic: Automatic) {
        self.thread_next_mail(desk);
        let silence_before = match &self.meta.outbox {
            Some(waiting) => waiting.silence_before,
            None => self.meta.stepped_from,
        };
        self.meta.outbox = Some(Outbox {
            news: news.to_owned(),
            automatic: automatic != Automatic::No,
            silence_before,
        });
    }

    /// Sends the mail waiting in the outbox, if any, and empties it.
    /// Returns whether one was sent.
    pub fn flush(&mut self, desk: &Desk) -> Result<bool, Error> {
        let Some(outbox) = self.meta.outbox.clone() else {
            return Ok(false);
        };
        let automatic = if outbox.automatic {
            Automatic::Generated
        } else {
            Automatic::No
        };
        self.mail(desk, &outbox.news, automatic)?;
        self.meta.outbox = None;
        self.meta.sent_late(now(), outbox.silence_before.as_ref());
        self.save_meta()?;
        Ok(true)
    }

    /// The board as it stands, as a PNG for a turn mail's HTML side. None
    /// when there is nothing to draw yet; should drawing fail, the mail
    /// goes as text alone (it is complete without the picture), and the
    /// player is told why.
    pub fn picture(&self) -> Option<Picture> {
        use crate::pictures::positions::{Shown, shown_of, timeline};
        let mut shown = shown_of(self.replay.game().snapshot())?;
        // A Castle Siege board shows the last turn's orders and dice, which
        // the replay does not keep: the record's tokens carry them. Only
        // the last turn is drawn from them; the position is the replay's.
        if let Shown::Siege(state, None) = &shown {
            let record = self
                .whole_record()
                .unwrap_or(std::borrow::Cow::Borrowed(&self.record));
            let mut drawn = timeline(&record_path(&self.locked), &record, None);
            // Only a timeline that reached the replay's own position.
            if drawn.error.is_none()
                && let Some(Shown::Siege(reached, Some(turn))) = drawn.positions.pop()
                && reached == *state
            {
                shown = Shown::Siege(reached, Some(turn));
            }
        }
        let id = self.id();
        let svg = crate::pictures::svg::draw(&shown, &id);
        match crate::pictures::png::png(&svg) {
            Ok((png, size)) => Some(Picture {
                png,
                size,
                alt: format!(
                    "The board of game {id} after {} plies, as the text below shows it.",
                    self.replay.plies()
                ),
            }),
            Err(e) => {
                eprintln!("warning: game {id}: the mail goes without its picture: {e}");
                None
            }
        }
    }

    /// The game's turn as it stands, as the pasteable block a turn mail
    /// carries, and as a whole mail ready to send by hand (the same mail
    /// `yam resend` sends).
    pub fn turn_by_hand(&self, desk: &Desk) -> Result<(String, Vec<u8>), Error> {
        let text = self.text();
        let id = self.id();
        let block = crate::mail::armor::armor(&id, self.replay.plies(), text.as_bytes());
        let players = self.players();
        let news = super::body::whose_turn(self, desk);
        let body = super::body::turn_body(self, desk, &news);
        let game_name = self.record.game().map_or("Yam", |g| g.name());
        let picture = self.picture();
        let message = desk.compose(&Outbound {
            to: &self.meta.opponent,
            game_name,
            game_id: &id,
            ply: self.replay.plies(),
            players: &players,
            body: &body,
            payload: text.as_bytes(),
            attachment: None,
            message_id: self.message_id(desk),
            thread: &self.meta.thread,
            automatic: Automatic::No,
            referee: self.meta.referee.as_deref(),
            reminder: None,
            picture: picture.as_ref(),
        })?;
        Ok((block, message.formatted()))
    }

    /// Sends my notice (a decline, a withdrawal) if it is not sent yet;
    /// whether one was sent.
    pub fn send_notice(&mut self, desk: &Desk) -> Result<bool, Error> {
        let Some(closed) = self.meta.closed.clone().filter(|c| c.mine && !c.sent) else {
            return Ok(false);
        };
        let id = self.id();
        let players = self.players();
        let address = desk.address();
        let domain = address.rsplit('@').next().unwrap_or("yam");
        let body = format!(
            "{}\n\nNothing more will come for game {id}. The signed notice below is for Yam\n(`yam read`), which closes the game on your side too.",
            closed.describe()
        );
        let game_name = self.record.game().map_or("Yam", |g| g.name());
        desk.send(&Outbound {
            to: &self.meta.opponent,
            game_name,
            game_id: &id,
            ply: self.replay.plies(),
            players: &players,
            body: &body,
            payload: closed.notice.as_bytes(),
            attachment: None,
            message_id: format!("yam.{id}.{}@{domain}", closed.kind.word()),
            thread: &self.meta.thread,
            automatic: Automatic::No,
            referee: self.meta.referee.as_deref(),
            reminder: None,
            picture: None,
        })?;
        if let Some(c) = self.meta.closed.as_mut() {
            c.sent = true;
        }
        self.save_meta()?;
        Ok(true)
    }

    /// Sends a reminder: the game as it stands, under a Message-ID and a
    /// subject of its own (a provider that drops a second mail with a
    /// Message-ID it has seen would drop a reminder that reused the turn's).
    pub fn remind(&mut self, desk: &Desk, news: &str, number: u32) -> Result<(), Error> {
        self.send_mail(desk, news, Automatic::No, Some(number))
    }

    fn send_mail(
        &mut self,
        desk: &Desk,
        news: &str,
        automatic: Automatic,
        reminder: Option<u32>,
    ) -> Result<(), Error> {
        let text = self.text();
        let id = self.id();
        let message_id = match reminder {
            None => self.message_id(desk),
            Some(n) => {
                let turn = self.message_id(desk);
                match turn.split_once('@') {
                    Some((local, domain)) => format!("{local}.remind{n}@{domain}"),
                    None => format!("{turn}.remind{n}"),
                }
            }
        };
        let players = self.players();
        let body = super::body::turn_body(self, desk, news);
        let game_name = self.record.game().map_or("Yam", |g| g.name());
        let picture = self.picture();
        let raw = desk.send(&Outbound {
            to: &self.meta.opponent,
            game_name,
            game_id: &id,
            ply: self.replay.plies(),
            players: &players,
            body: &body,
            payload: text.as_bytes(),
            attachment: None,
            message_id: message_id.clone(),
            thread: &self.meta.thread,
            automatic,
            referee: self.meta.referee.as_deref(),
            reminder,
            picture: picture.as_ref(),
        })?;
        let threaded = self.meta.thread.contains(&message_id);
        crate::mail::thread::add(&mut self.meta.thread, &message_id);
        // A copy for the player's eyes: nothing reads it back (`yam resend`
        // composes the mail anew from the record), so it is written in
        // place, without the new file and the syncs a game's state needs.
        keep_copy(&self.locked.dir().join("last-sent.eml"), &raw)
            .map_err(|e| Error::usage(format!("cannot keep the sent mail: {e}")))?;
        if threaded { Ok(()) } else { self.save_meta() }
    }
}

/// Overwrites `path` with `bytes` in place: a game's mails only grow, so
/// the file's blocks are reused, where truncating first would free them
/// and allocate them again (and on a disk mounted with discard, free them
/// synchronously) for every turn.
fn keep_copy(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut file = std::fs::File::options()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)?;
    file.write_all(bytes)?;
    file.set_len(bytes.len() as u64)
}

/// The placeholder of a seat whose player is not known yet (seats drawn,
/// before the draw is revealed).
pub const UNKNOWN_PLAYER: &str = "?";

/// Sets the player tags from the seats and `name` (the name a key goes
/// by), each once: a seat's tag is written when the seats are known and
/// it is missing or still the placeholder, and never changed afterwards
/// (a later card or a new identity name changes no record, so both
/// desks' records and the referee's copy keep agreeing). Before the seats
/// are known, a missing tag is the placeholder; a name is never replaced
/// by it.
pub fn set_player_tags(
    record: &mut Record<String>,
    replay: &SignedReplay,
    name: impl Fn(&PublicKey) -> String,
) {
    let Some(kind) = record.game() else { return };
    match replay.seats() {
        Some(seats) => {
            for (tag, key) in kind.player_tags().iter().zip(seats) {
                if record
                    .tags
                    .get(tag)
                    .is_none_or(|named| named == UNKNOWN_PLAYER)
                {
                    record.tags.set(tag, name(key));
                }
            }
        }
        None => {
            for tag in kind.player_tags() {
                if record.tags.get(tag).is_none() {
                    record.tags.set(tag, UNKNOWN_PLAYER);
                }
            }
        }
    }
}

/// The header of `text` as a record (its tags), with the text's own
/// result token: what a game kept as its text holds as its record.
fn header_record(text: &str, bounds: Option<Bounds>) -> Result<Record<String>, Error> {
    let bounds = bounds.ok_or_else(|| Error::usage("internal error: the record has no bounds"))?;
    let result = text.get(bounds.cut + 1..).unwrap_or("*").trim();
    let header = format!("{}\n\n{result}\n", &text[..bounds.movetext]);
    parse_record::<RawGrammar>(&header)
        .map_err(|e| Error::usage(format!("internal error: the record's header: {e}")))
}
