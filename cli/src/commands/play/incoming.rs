//! Reading mail: each mail is read, its turn (or card) checked against the
//! stored game, and applied only when everything holds. A refused mail
//! changes nothing and stays where it was; reading a mail twice changes
//! nothing the second time.

use crate::error::Error;
use crate::mail::compose::Automatic;
use yam_referee::signed::table::{Duty, next_duty};
use yam_referee::signed::{SignedReplay, SignedText};

use crate::mail::armor::ArmorError;
use crate::mail::extract::{Incoming, Turn, read_mail, read_mail_attachments};

use super::act::{self, ChallengeSettings};
use super::desk::{Closed, Desk, Game, Outbound, ResignationOwed, Stored, now};
use crate::game::checkpoint;
use crate::game::record::{
    RecordFault, claimed_id, clean_prose, continue_kept, prose_by_event, stored_events_and_record,
    verified_with_view,
};
use crate::mail::cards::{Card, Remembered, is_card};
use crate::mail::notice::{Notice, NoticeKind, is_notice};
use yam_referee::fair_play::turn::{EventBody, SignedEvent};
use yam_referee::signed::Known;
use yam_referee::signed::adoption::{
    Adoption, Stands, adoption, resignation_taken_back, void_resigner,
};
use yam_referee::signed::prefix::PrefixDigest;
use yam_referee::signed::tip::{After, Bounds, replay_after};
use yam_referee::signed::write::{AppendedInPlace, append_each_verified_in_place};

/// What reading one mail did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The game moved on.
    Applied {
        /// The game.
        game: String,
        /// What happened, in words.
        news: Vec<String>,
    },
    /// A new challenge is stored, waiting for `yam accept`.
    Challenged {
        /// The game.
        game: String,
        /// Who challenges.
        by: String,
        /// The days of silence after which a forfeit may be claimed, as
        /// the challenge proposes them (what the invited player accepts).
        forfeit_days: u32,
    },
    /// A card was read (and perhaps answered, or a waiting challenge sent).
    Card(String),
    /// The mail brings nothing new (read before): nothing changed.
    AlreadyKnown(String),
    /// Not for Yam (no turn, an auto-reply, list mail): left alone.
    Ignored(String),
    /// Refused, with why: nothing changed, the mail stays where it was.
    Refused(String),
}

impl Outcome {
    /// Whether the mail has been dealt with (and may be marked seen).
    pub fn dealt_with(&self) -> bool {
        matches!(
            self,
            Outcome::Applied { .. }
                | Outcome::Challenged { .. }
                | Outcome::Card(_)
                | Outcome::AlreadyKnown(_)
        )
    }
}

/// A turn mail Yam wrote (`X-Yam-Game: ID PLY`) for a game of this desk,
/// from a party of it, that arrives with neither its attachment nor its
/// turn block: a gateway that keeps only the HTML, or a list that strips
/// attachments and the text. Said, with what to do, rather than passed
/// over as mail not Yam's: the game would wait for ever. A copy of an
/// earlier turn (the game is past its ply) changes nothing. `None` for
/// anything else (the robot's mails name a game without a ply; a stranger
/// naming one of my games is not Yam's).
fn lost_turn(desk: &Desk, incoming: &Incoming, from: &str) -> Option<Outcome> {
    let (id, ply) = incoming.named_turn()?;
    let game = Game::open(&desk.store, id).ok()?;
    let key = desk.contacts.by_address(from)?.public_key()?;
    if !game.replay.parties().iter().any(|p| p.key == key) {
        return None;
    }
    let id = crate::mail::cards::clean_text(id);
    if game.replay.plies() > ply {
        return Some(Outcome::AlreadyKnown(format!(
            "game {id}: a copy of an earlier turn mail (#{ply}) without its turn; nothing changes"
        )));
    }
    Some(Outcome::Refused(format!(
        "game {id}: the turn mail #{ply} from {from} arrived without its turn: the attached record and the turn block were removed on the way (a gateway that keeps only HTML, or a list?). Ask them to send it again (`yam resend {id}`), or the record as a file (`yam turn {id} -o FILE`)"
    )))
}

/// Reads one raw mail.
///
/// Every candidate the mail carries is considered (attached records first,
/// then the turn blocks of its own text): a reply may carry a copy of an
/// earlier turn before the new one (Outlook leaves the original unquoted,
/// some clients re-attach it). A candidate that brings something new
/// decides; copies of known events are known, not refused; the mail is
/// "already known" only when no candidate is new, and refused only when a
/// candidate is refused and none is new.
pub fn process(desk: &mut Desk, raw: &[u8]) -> Outcome {
    // The contacts as they are now: another command may have remembered
    // or forgotten one since this desk read them.
    if let Err(e) = desk.contacts.refresh() {
        return Outcome::Refused(format!("the contacts cannot be read: {e}"));
    }
    // The attached records first, alone: one that applies decides, and the
    // turn blocks of the text (the same record once more) are then never
    // decoded.
    let attached = match read_mail_attachments(raw) {
        Ok(i) => i,
        Err(e) => return Outcome::Refused(format!("unreadable: {e}")),
    };
    let from = attached.from.clone().unwrap_or_default();
    if from == desk.address() {
        return Outcome::Ignored("my own mail".into());
    }
    // An auto-reply or a bounce is left alone before anything in it is
    // looked at, whatever it quotes (RFC 3834).
    if let Some(why) = attached.automatic_not_yam() {
        return Outcome::Ignored(format!("from {from}: {why}"));
    }
    let sender = desk
        .contacts
        .by_address(&from)
        .map_or_else(|| from.clone(), |c| c.name.clone());
    let mut judged = Judged {
        sender,
        ..Judged::default()
    };
    // Yam attaches the record to every mail it writes (`X-Yam-Game`): a
    // Yam mail without it lost it on the way (a gateway or a list that
    // strips attachments); the text block may still carry the turn.
    if let Some(game) = attached.named_game()
        && !attached
            .turns
            .iter()
            .any(|t| matches!(t, Turn::Attachment { .. }))
    {
        judged.note = Some(format!(
            "the attached record {}.yam was removed on the way (by a gateway or a list); the turn was read from the mail's text",
            crate::mail::cards::clean_text(game)
        ));
    }
    for turn in &attached.turns {
        let (candidate, checksum) = read_turn(desk, &from, &attached, turn);
        if let Some(decided) = judged.add(candidate, turn) {
            return with_forks_in_text(desk, raw, &attached, turn, checksum, decided);
        }
    }
    let incoming = match read_mail(raw) {
        Ok(i) => i,
        Err(e) => return Outcome::Refused(format!("unreadable: {e}")),
    };
    let tried = attached.turns.len().min(incoming.turns.len());
    for turn in &incoming.turns[tried..] {
        if let Some(decided) = judged.add(read_turn(desk, &from, &incoming, turn).0, turn) {
            return decided;
        }
    }
    if incoming.turns.is_empty() {
        if let Some(damage) = incoming.damaged.first() {
            return Outcome::Refused(format!("from {from}: {damage}"));
        }
        if let Some(lost) = lost_turn(desk, &incoming, &from) {
            return lost;
        }
        if incoming.bulk {
            return Outcome::Ignored(format!("from {from}: list mail without a Yam turn"));
        }
        return Outcome::Ignored(format!("from {from}: no Yam turn in it"));
    }
    let passed_over = incoming.turns_passed_over;
    let verdict = match judged.verdict(&from, incoming.damaged.first()) {
        // Nothing new, in a mail Yam did not write (no `X-Yam-Game`): a
        // person's reply or forward that carries a turn already read
        // (Outlook leaves the original unquoted below the reply). It is
        // personal mail, left as it was: counted as Yam's, it was marked
        // read, or filed out of the inbox, before its reader saw it.
        Outcome::AlreadyKnown(_) if incoming.named_game().is_none() => Outcome::Ignored(format!(
            "from {from}: not Yam's (a reply or a forward that carries a turn read before)"
        )),
        verdict => verdict,
    };
    match verdict {
        Outcome::Refused(why) if passed_over > 0 => Outcome::Refused(format!(
            "{why}; and {passed_over} more record(s) in the mail were passed over unread (at most {} are read from one mail)",
            crate::mail::extract::MAX_TURNS
        )),
        verdict => verdict,
    }
}

/// An attached record applied: whether the mail's own text carries another
/// record of the game that parts from it. A sender who signs two different
/// continuations and sends one attached and the other in the text would
/// have one reader take the first and another (whose gateway strips
/// attachments) the second; the desk applies the attached one, as always,
/// and says that the mail holds the other, to be kept as evidence. The
/// text is decoded only when a block's checksum differs from the attached
/// record's (an Outlook-style reply's copy of an older turn: then found an
/// earlier state, and nothing is said).
fn with_forks_in_text(
    desk: &Desk,
    raw: &[u8],
    attached: &Incoming,
    turn: &Turn,
    checksum: Option<String>,
    decided: Outcome,
) -> Outcome {
    let Turn::Attachment { bytes, .. } = turn else {
        return decided;
    };
    let (game, mut news) = match decided {
        Outcome::Applied { game, news } => (game, news),
        other => return other,
    };
    // Known from the stored game's tip when the record continued it (only
    // its new bytes were hashed); else the attachment is hashed whole.
    // (Every test build checks the first against the second: the end-to-end
    // tests read hundreds of turn mails through tips.)
    debug_assert!(
        checksum
            .as_ref()
            .is_none_or(|sum| *sum == crate::mail::armor::checksum(bytes)),
        "the checksum finished from the tip's digest is the record's"
    );
    let sum = checksum.unwrap_or_else(|| crate::mail::armor::checksum(bytes));
    if attached.text_sums.iter().all(|s| *s == sum) {
        return Outcome::Applied { game, news };
    }
    let Ok(stored) = Stored::open(&desk.store, &game).and_then(|mut s| s.events()) else {
        return Outcome::Applied { game, news };
    };
    let incoming = read_mail(raw).unwrap_or_default();
    for block in incoming.turns.iter().filter_map(|t| match t {
        Turn::Block(b) if crate::mail::armor::checksum(&b.payload) != sum => Some(b),
        _ => None,
    }) {
        let Ok((other, _)) = stored_events_and_record(&block.payload) else {
            continue;
        };
        // Another game's turn, quoted unmarked in a reply, is no record of
        // this one: a game is its first event (the challenge).
        if other.first().map(|e| &e.event) != stored.first().map(|e| &e.event) {
            continue;
        }
        if let Adoption::Fork(common) = adoption(&stored, &other, None) {
            news.push(format!(
                "the mail's text carries another record of game {} that differs from the attached one from event #{common} on: the attached one was applied. Keep this mail: if both are signed by the same player, they signed two different turns (`yam dispute` on the two records shows it)",
                crate::mail::cards::clean_text(&game)
            ));
            break;
        }
    }
    Outcome::Applied { game, news }
}

/// What the candidates of one mail came to so far.
#[derive(Debug, Default)]
struct Judged {
    /// The sender, as the reader knows them.
    sender: String,
    known: Option<Outcome>,
    refused: Option<Outcome>,
    /// An attached record that arrived damaged (its name).
    damaged: Option<String>,
    /// What the reader is told besides the news (an attachment lost).
    note: Option<String>,
    /// A card read (its words): it does not decide the mail, since a
    /// turn beside it (a player who moved forwards her new card and her
    /// turn in one mail) may be acceptable only now.
    card: Option<String>,
}

impl Judged {
    /// Takes one candidate's outcome (read from `turn`); returns the mail's
    /// outcome when this one decides it (it brought something new).
    fn add(&mut self, candidate: Candidate, turn: &Turn) -> Option<Outcome> {
        let outcome = match candidate {
            Candidate::Damaged(name) => {
                self.damaged.get_or_insert(name);
                return None;
            }
            Candidate::Judged(outcome) => outcome,
        };
        match outcome {
            Outcome::AlreadyKnown(_) => {
                self.known.get_or_insert(outcome);
                None
            }
            Outcome::Refused(_) | Outcome::Ignored(_) => {
                self.refused.get_or_insert(outcome);
                None
            }
            Outcome::Card(said) => {
                self.card.get_or_insert(said);
                None
            }
            Outcome::Applied { game, mut news } => {
                if let Some(said) = self.card.take() {
                    news.insert(0, said);
                }
                if let Some(name) = &self.damaged {
                    news.push(format!(
                        "the attached record {name} arrived damaged (cut or altered on the way); the turn was read from {}",
                        match turn {
                            Turn::Block(_) => "the mail's text".to_owned(),
                            Turn::Attachment { name, .. } => format!(
                                "another attachment, {}",
                                crate::mail::cards::clean_text(name)
                            ),
                        }
                    ));
                }
                news.extend(self.note.take());
                Some(Outcome::Applied { game, news })
            }
            decided => Some(decided),
        }
    }

    /// The outcome when no candidate brought anything new.
    fn verdict(self, from: &str, block_damage: Option<&ArmorError>) -> Outcome {
        let verdict = match (self.damaged, self.refused, self.known) {
            (Some(name), None, _) => Outcome::Refused(format!(
                "from {from}: the attached record {name} arrived damaged (cut or altered on the way){}; ask {} to send it again (yam resend)",
                block_damage
                    .map(|e| format!(", and {e}"))
                    .unwrap_or_default(),
                self.sender
            )),
            (_, Some(refused), _) => refused,
            (None, None, Some(known)) => known,
            (None, None, None) => {
                return match self.card {
                    Some(said) => Outcome::Card(said),
                    None => Outcome::Refused("no readable turn".into()),
                };
            }
        };
        // A card read decides a mail that brought nothing else new; beside
        // a refusal both are said, and the mail stays to be read again.
        match (self.card, verdict) {
            (Some(said), Outcome::Refused(why)) => Outcome::Refused(format!("{said}; but {why}")),
            (Some(said), Outcome::AlreadyKnown(_)) => Outcome::Card(said),
            (_, verdict) => verdict,
        }
    }
}

/// What one candidate of a mail came to: an outcome, or an attached
/// record that does not even read (cut or altered on the way; the mail's
/// text block may still carry the turn).
enum Candidate {
    Judged(Outcome),
    Damaged(String),
}

/// What one candidate came to, and its checksum (`armor::checksum`) when
/// it was known without hashing it whole (a record continued from the
/// stored game's tip).
fn read_turn(
    desk: &mut Desk,
    from: &str,
    incoming: &Incoming,
    turn: &Turn,
) -> (Candidate, Option<String>) {
    let bytes = match turn {
        Turn::Attachment { bytes, .. } => bytes.as_slice(),
        Turn::Block(block) => block.payload.as_slice(),
    };
    if is_notice(bytes) {
        return (Candidate::Judged(notice(desk, from, bytes)), None);
    }
    if is_card(bytes) {
        // Only a person's introduction is answered: never a reply (a card
        // answering mine), never an automatic mail (RFC 3834).
        let introduction = (incoming.replies_to.is_empty() && incoming.auto_submitted.is_none())
            .then_some(incoming.message_id.as_deref().unwrap_or(""));
        return (
            Candidate::Judged(card(desk, from, bytes, introduction)),
            None,
        );
    }
    let candidate = match record(
        desk,
        from,
        bytes,
        Envelope {
            message_id: incoming.message_id.as_deref(),
            sent_at: incoming.sent_at,
        },
        incoming.referee.as_deref(),
    ) {
        Ok((outcome, checksum)) => return (Candidate::Judged(outcome), checksum),
        // An attachment carries no checksum: one that does not read was
        // damaged on the way, and saying so (not the parser's view of its
        // bytes, which may be raw base64) tells the reader what to do.
        Err(_) if matches!(turn, Turn::Attachment { .. }) => {
            let Turn::Attachment { name, .. } = turn else {
                unreachable!("matched above")
            };
            Candidate::Damaged(crate::mail::cards::clean_text(name))
        }
        // A block's checksum held: its bytes are what the sender sent.
        Err(e) => Candidate::Judged(Outcome::Refused(format!("from {from}: {e}"))),
    };
    (candidate, None)
}

/// A decline or a withdrawal: checked against the stored game (its
/// challenge, who may give it, whether the game has gone too far), then the
/// game is closed.
fn notice(desk: &mut Desk, from: &str, bytes: &[u8]) -> Outcome {
    let notice = match Notice::read(bytes) {
        Ok(n) => n,
        Err(e) => return Outcome::Refused(format!("from {from}: {e}")),
    };
    let id = notice.game.clone();
    let refused = |why: String| Outcome::Refused(format!("game {id}: {why}"));
    // The sender's address must be the author's, as for a turn.
    let Some(sender) = desk.contacts.by_address(from).cloned() else {
        return refused(format!(
            "a notice from {from}, an address not in the game (no card from it was ever read)"
        ));
    };
    if sender.public_key() != Some(notice.key) {
        return refused(format!(
            "a notice from {from} signed by another key than theirs"
        ));
    }
    if !desk.store.holds(&id) {
        return Outcome::Ignored(format!(
            "from {from}: a notice for {id}, not a game of yours"
        ));
    }
    let mut game = match Game::open(&desk.store, &id) {
        Ok(g) => g,
        Err(e) => return Outcome::Refused(e.to_string()),
    };
    if game.replay.events().first().map(SignedEvent::hash) != Some(notice.challenge) {
        return refused("the notice names another challenge than this game's".to_owned());
    }
    if let Some(closed) = &game.meta.closed {
        return Outcome::AlreadyKnown(format!("game {id}: {}", closed.describe()));
    }
    let Some(challenge) = game.replay.challenge() else {
        return refused("the game has no challenge".to_owned());
    };
    let author = notice.key;
    match notice.kind {
        // Only an invited player, and only before their acceptance has
        // arrived here: an acceptance signed and received stands.
        NoticeKind::Decline => {
            if !challenge.invited.contains(&author) {
                return refused("a decline from someone who was not invited".to_owned());
            }
            if next_duty(&game.replay) != Some(Duty::Accept(author)) {
                return refused(format!(
                    "{} declines, but has accepted already: the game goes on (a resignation ends it)",
                    sender.name
                ));
            }
        }
        // Only the challenger, and only while they have signed nothing
        // since the challenge: a challenger who has revealed a seat draw,
        // moved or answered a roll knew the challenge was accepted.
        NoticeKind::Withdraw => {
            if challenge.challenger.key != author {
                return refused("a withdrawal from someone other than the challenger".to_owned());
            }
            if game
                .replay
                .events()
                .iter()
                .skip(1)
                .any(|e| e.event.author == author)
            {
                return refused(format!(
                    "{} withdraws, but has played since the challenge was accepted: the game goes on (a resignation ends it)",
                    sender.name
                ));
            }
        }
    }
    let closed = Closed {
        kind: notice.kind,
        by: sender.name.clone(),
        at: now(),
        reason: notice.reason.clone(),
        notice: String::from_utf8_lossy(bytes).into_owned(),
        mine: false,
        sent: false,
    };
    let said = closed.describe();
    game.meta.closed = Some(closed);
    if let Err(e) = game.save_meta() {
        return Outcome::Refused(e.to_string());
    }
    Outcome::Applied {
        game: id.clone(),
        news: vec![format!("game {id}: {said} Nothing more is played.")],
    }
}

/// Notes a mail of game `id` in its thread, so replies thread under it.
fn thread(desk: &Desk, id: &str, message_id: &str) {
    if let Ok(mut game) = Game::open(&desk.store, id)
        && !game.meta.thread.iter().any(|m| m == message_id)
    {
        crate::mail::thread::add(&mut game.meta.thread, message_id);
        // Threading is a courtesy: a failure here loses no game state.
        let _ = game.save_meta();
    }
}

/// A day, in seconds.
const DAY: u64 = 24 * 60 * 60;

/// A card: remember the sender, answer an introduction with my own card,
/// and send the challenge that waited for this key.
fn card(desk: &mut Desk, from: &str, bytes: &[u8], introduction: Option<&str>) -> Outcome {
    let card = match Card::read(bytes) {
        Ok(c) => c,
        Err(e) => return Outcome::Refused(format!("from {from}: a damaged card: {e}")),
    };
    if card.address != from {
        return Outcome::Refused(format!(
            "from {from}: the card is for {}, not for the sender's address",
            card.address
        ));
    }
    let remembered = match desk.contacts.remember(&card) {
        Ok(r) => r,
        Err(e) => return Outcome::Refused(e.to_string()),
    };
    let known_before = matches!(remembered, Remembered::Known);
    let mut said = match remembered {
        Remembered::New => format!(
            "new contact {} <{}>, key fingerprint {} (compare it with them by another channel)",
            card.name,
            card.address,
            card.key.fingerprint()
        ),
        Remembered::Known => {
            let mut said = format!("{} <{}>: the key is the one known", card.name, card.address);
            // A move half done before (a game that could not be moved
            // then): the games still at a former address move now.
            let former = desk
                .contacts
                .by_address(&card.address)
                .map(|c| c.former.clone())
                .unwrap_or_default();
            if !former.is_empty() {
                match desk.move_opponent(&former, &card.address) {
                    Ok((games, failed)) => {
                        if !games.is_empty() {
                            said.push_str(&format!(
                                "; games {} still went to a former address and now go to this one",
                                games.join(", ")
                            ));
                        }
                        if !failed.is_empty() {
                            said.push_str(&format!(
                                "; games that could not be looked at: {} (read this card again once they are mended)",
                                failed.join(", ")
                            ));
                        }
                    }
                    Err(e) => return Outcome::Refused(e.to_string()),
                }
            }
            said
        }
        Remembered::Moved { from: former } => {
            let (games, failed) =
                match desk.move_opponent(std::slice::from_ref(&former), &card.address) {
                    Ok(games) => games,
                    Err(e) => return Outcome::Refused(e.to_string()),
                };
            format!(
                "{} moved from {former} to {}: the card is signed with the key known for them (fingerprint {}); {}{}",
                card.name,
                card.address,
                card.key.fingerprint(),
                if games.is_empty() {
                    "no game of yours was with them".to_owned()
                } else {
                    format!("games {} now go to the new address", games.join(", "))
                },
                if failed.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; games that could not be looked at: {} (read this card again once they are mended: the games still at the former address move then)",
                        failed.join(", ")
                    )
                }
            )
        }
    };
    // Held until the waiting challenge is sent and dropped: a second read
    // of the card waits, then finds none waiting.
    let _pending = match lock_pending(desk, false) {
        Ok(lock) => lock,
        Err(e) => return Outcome::Refused(e.to_string()),
    };
    match waiting_challenge(desk, &card.address) {
        Ok(Some(settings)) => {
            let Some(contact) = desk.contacts.by_address(&card.address).cloned() else {
                return Outcome::Refused("the contact was not kept".into());
            };
            // The challenge waits until it is sent: one that cannot be
            // signed now (its id taken meanwhile) stays, and is said each
            // time the card is read, rather than dropped unsaid.
            match act::challenge(desk, &contact, &settings) {
                Ok(id) => {
                    said.push_str(&format!("; the waiting challenge {id} is sent"));
                    if let Err(e) = drop_waiting(desk, &card.address) {
                        said.push_str(&format!("; {e} (remove it by hand, or it is sent again)"));
                    }
                }
                Err(e) => {
                    return Outcome::Refused(format!(
                        "the waiting challenge to {} cannot be sent: {e}; it still waits, and goes when this card is read again{}",
                        card.address,
                        settings
                            .id
                            .as_deref()
                            .map(|id| format!(" (`yam withdraw {id}` drops it)"))
                            .unwrap_or_default()
                    ));
                }
            }
        }
        Ok(None) if introduction.is_some() => {
            // A card known already, answered less than a day ago: a replay
            // (the same card under a new Message-ID), which would have me
            // mail them again and again; a player who really lost my card
            // has it again tomorrow, or by `yam identity send`.
            let now = now();
            let answered = desk
                .contacts
                .by_address(&card.address)
                .map_or(0, |c| c.answered);
            if known_before && now.saturating_sub(answered) < DAY {
                said.push_str("; not answered again (my card went to them less than a day ago)");
            } else {
                let answering = introduction.filter(|id| !id.is_empty()).unwrap_or("card");
                if let Err(e) = send_card(desk, &card.address, Some(answering)) {
                    return Outcome::Refused(format!("cannot answer the card: {e}"));
                }
                // Only a courtesy's bookkeeping: the card is sent either way.
                let _ = desk.contacts.note_answered(&card.address, now);
                said.push_str("; my card is sent in answer");
            }
        }
        Ok(None) => {}
        Err(e) => return Outcome::Refused(e.to_string()),
    }
    Outcome::Card(said)
}

/// Sends my card to `to`: an introduction, or the answer to the one whose
/// Message-ID is `answering` (threaded under it and marked
/// `Auto-Submitted: auto-replied`, so that it is never answered in turn).
pub fn send_card(desk: &Desk, to: &str, answering: Option<&str>) -> Result<Vec<u8>, Error> {
    let answer = answering.is_some();
    let thread: Vec<String> = answering.map(str::to_owned).into_iter().collect();
    let card = desk.card();
    let text = card.signed_text(&desk.me.key);
    let body = format!(
        "{} <{}> would like to play Yam games with you.\n\nKey fingerprint: {}\n\nYam reads this card by itself (`yam read`) and remembers the key; compare\nthe fingerprint by another channel if you want to be sure it is theirs.",
        card.name,
        card.address,
        card.key.fingerprint()
    );
    let domain = card.address.rsplit('@').next().unwrap_or("yam").to_owned();
    let kind = if answer { "answer" } else { "intro" };
    let message_id = format!(
        "yam.card.{kind}.{}.{}@{domain}",
        &hex::encode(card.key.as_bytes())[..16],
        now()
    );
    let players = [card.name.clone()];
    desk.send(&Outbound {
        to,
        game_name: "card",
        game_id: "card",
        ply: u32::from(answer),
        players: &players,
        body: &body,
        payload: text.as_bytes(),
        attachment: None,
        message_id,
        thread: &thread,
        automatic: if answer {
            Automatic::Replied
        } else {
            Automatic::No
        },
        referee: None,
        reminder: None,
        picture: None,
    })
}

/// The file of the challenge waiting for `address`'s card: named by the
/// address's normal form, or by the ASCII-lower-cased form an earlier
/// build named it by when that file is the one there (`Ümit@...` for
/// `ümit@...`), so a challenge kept before the forty-first step is still
/// sent when her card comes.
fn pending_path(desk: &Desk, address: &str) -> std::path::PathBuf {
    let dir = desk.store.root().join("pending");
    let file = |a: &str| dir.join(format!("{}.yaml", a.replace(['/', '\\'], "_")));
    let path = file(&crate::mail::address::normal(address));
    if !path.exists() && !address.is_ascii() {
        let legacy = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .find(|e| {
                e.file_name()
                    .to_str()
                    .and_then(|n| n.strip_suffix(".yaml"))
                    .is_some_and(|n| crate::mail::address::same(n, address))
            });
        if let Some(legacy) = legacy {
            return legacy.path();
        }
    }
    path
}

/// The lock every look at and change of the challenges waiting for a card
/// (`pending/`) is made under: the read that takes a card and sends the
/// challenge waiting for it, `yam challenge` keeping one, `yam withdraw`
/// dropping one. Without it two reads of one card (a cron job's and the
/// player's) each sent the waiting challenge, under two ids drawn at
/// random, and a withdrawal said "never sent: it is dropped" of a
/// challenge a read was sending. `None` when no challenge ever waited
/// (no `pending/`) and `create` is false: then none waits to be taken.
pub fn lock_pending(desk: &Desk, create: bool) -> Result<Option<std::fs::File>, Error> {
    let dir = desk.store.root().join("pending");
    if create {
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, "cannot create", e))?;
    } else if !dir.is_dir() {
        return Ok(None);
    }
    let path = dir.join(PENDING_LOCK);
    crate::store::lock_file(&path)
        .map(Some)
        .map_err(|e| Error::io(&path, "cannot lock", e))
}

/// The lock file of `pending/` ([`lock_pending`]): a dot file, which no
/// listing of the waiting challenges takes for one.
pub const PENDING_LOCK: &str = ".lock";

/// A challenge kept until `address`'s card comes. One waits at a time: a
/// second one written over the first lost it without a word (both
/// commands said it would follow by itself).
pub fn keep_pending(desk: &Desk, address: &str, settings: &ChallengeSettings) -> Result<(), Error> {
    let _pending = lock_pending(desk, true)?;
    let path = pending_path(desk, address);
    match std::fs::symlink_metadata(&path) {
        Ok(_) => {
            let waiting = std::fs::read_to_string(&path)
                .ok()
                .and_then(|t| serde_yaml_ng::from_str::<ChallengeSettings>(&t).ok())
                .and_then(|s| s.id);
            return Err(Error::usage(format!(
                "a challenge to {address} already waits for their card{}: it is sent when `yam read` reads the card; challenge again once it has{}",
                waiting
                    .as_deref()
                    .map(|id| format!(" (game {id})"))
                    .unwrap_or_default(),
                waiting
                    .as_deref()
                    .map(|id| format!(", or drop it first with `yam withdraw {id}`"))
                    .unwrap_or_default(),
            )));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(Error::usage(format!(
                "{}: cannot be read: {e}",
                path.display()
            )));
        }
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::usage(format!("{}: {e}", dir.display())))?;
    }
    let text = serde_yaml_ng::to_string(settings).map_err(|e| Error::usage(e.to_string()))?;
    crate::store::atomic::write(&path, text.as_bytes(), true)
        .map_err(|e| Error::usage(format!("{}: {e}", path.display())))
}

/// Every challenge kept waiting for a card, by the address it waits for
/// (as its file names it), with its settings or why they do not read:
/// listed by `yam games`, which showed them nowhere, so a challenge whose
/// card was lost waited unseen.
pub fn waiting_challenges(desk: &Desk) -> Vec<(String, Result<ChallengeSettings, String>)> {
    let dir = desk.store.root().join("pending");
    let mut out: Vec<(String, Result<ChallengeSettings, String>)> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.strip_suffix(".yaml")?.to_owned();
            if name.starts_with('.') {
                return None;
            }
            let settings = std::fs::read_to_string(e.path())
                .map_err(|e| e.to_string())
                .and_then(|t| {
                    serde_yaml_ng::from_str::<ChallengeSettings>(&t).map_err(|e| e.to_string())
                });
            Some((name, settings))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn waiting_challenge(desk: &Desk, address: &str) -> Result<Option<ChallengeSettings>, Error> {
    let path = pending_path(desk, address);
    // Only an absent file is "no challenge waits": one there that cannot
    // be read was taken for none, and the challenge never went.
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(Error::usage(format!(
                "{}: the challenge waiting for this card cannot be read: {e}",
                path.display()
            )));
        }
    };
    let settings = serde_yaml_ng::from_str(&text)
        .map_err(|e| Error::usage(format!("{}: {e}", path.display())))?;
    Ok(Some(settings))
}

/// Removes the challenge that waited for `address`'s card, once sent.
fn drop_waiting(desk: &Desk, address: &str) -> Result<(), Error> {
    let path = pending_path(desk, address);
    std::fs::remove_file(&path).map_err(|e| Error::usage(format!("{}: {e}", path.display())))
}

/// A record: a new challenge, or the continuation of a stored game.
fn record(
    desk: &mut Desk,
    from: &str,
    bytes: &[u8],
    envelope: Envelope<'_>,
    referee: Option<&str>,
) -> Result<(Outcome, Option<String>), RecordFault> {
    let held_before = claimed_id(bytes).is_some_and(|id| desk.store.holds(&id));
    let (outcome, checksum) = record_once(desk, from, bytes, envelope, referee)?;
    // A game none held, refused, and held now: another read stored it
    // meanwhile (one challenge delivered twice, each copy piped to its own
    // `yam read --stdin` by a mail filter). Read again against the game
    // stored: a copy of the same challenge is "read before", where it was
    // refused because the game "exists already" (exit 1, a failed
    // delivery to the filter).
    if let Outcome::Refused(_) = outcome
        && !held_before
        && claimed_id(bytes).is_some_and(|id| desk.store.holds(&id))
    {
        return record_once(desk, from, bytes, envelope, referee);
    }
    Ok((outcome, checksum))
}

fn record_once(
    desk: &mut Desk,
    from: &str,
    bytes: &[u8],
    envelope: Envelope<'_>,
    referee: Option<&str>,
) -> Result<(Outcome, Option<String>), RecordFault> {
    let place = desk.store.root().join("games").join("incoming.yam");
    // The stored game it continues, if any: the events its checkpoint
    // vouches for were verified, so only the mail's new events have their
    // signatures checked (without a matching checkpoint, all of them).
    let claimed = claimed_id(bytes).filter(|id| desk.store.holds(id));
    let opened = match claimed {
        Some(id) => match Stored::open(&desk.store, &id) {
            Ok(s) => Some(s),
            Err(e) => return Ok((Outcome::Refused(e.to_string()), None)),
        },
        None => None,
    };
    // The fast way: a record that continues the stored text, whose tip
    // restores the stored replay, is read and walked from there (only its
    // new part); anything else is verified as a whole.
    let mut checksum = None;
    let verified = match opened {
        Some(mut s) => match continued_from_tip(&mut s, bytes) {
            Some((tip, replay, sum)) => {
                checksum = sum;
                Verified {
                    stored: Some((s, StoredAs::Tip(Box::new(tip)))),
                    replay,
                }
            }
            None => match verified_whole(Some(s), bytes, &place, from)? {
                Ok(verified) => verified,
                Err(refused) => return Ok((refused, None)),
            },
        },
        None => match verified_whole(None, bytes, &place, from)? {
            Ok(verified) => verified,
            Err(refused) => return Ok((refused, None)),
        },
    };
    let outcome = verified_record(desk, from, bytes, envelope, referee, verified);
    Ok((outcome, checksum))
}

/// A record verified as a whole, knowing the events the stored game's
/// checkpoint vouches for (their signatures are not checked again); the
/// refusal to say if it does not verify, and a syntax error as one.
fn verified_whole(
    opened: Option<Stored>,
    bytes: &[u8],
    place: &std::path::Path,
    from: &str,
) -> Result<Result<Verified, Outcome>, RecordFault> {
    let stored = match opened {
        Some(mut s) => match s.events() {
            Ok(events) => Some((s, events)),
            Err(e) => return Ok(Err(Outcome::Refused(e.to_string()))),
        },
        None => None,
    };
    let kept = stored.as_ref().and_then(|(s, _)| s.checkpoint());
    let known = stored.as_ref().map_or(Known::Nothing, |(_, events)| {
        Known::Events(checkpoint::vouched(kept.as_ref(), events))
    });
    let (record, signed, replay) = match verified_with_view(bytes, place, known) {
        Ok(r) => r,
        Err(e @ (RecordFault::Syntax(_) | RecordFault::NotUtf8 | RecordFault::NotOneGame(_))) => {
            return Err(e);
        }
        Err(e) => return Ok(Err(Outcome::Refused(format!("from {from}: {e}")))),
    };
    Ok(Ok(Verified {
        stored: stored.map(|(s, events)| {
            (
                s,
                StoredAs::Events {
                    events,
                    record,
                    signed,
                },
            )
        }),
        replay,
    }))
}

/// The replay of `bytes`, a turn mail's record, walked from the stored
/// game's tip through what follows the stored text (the record then
/// continues the stored text byte for byte); the stored text (`stored`'s)
/// has then the new events appended in its own buffer, each with the prose
/// its sender gave it; and the record's checksum (`armor::checksum`),
/// finished from the tip's digest over its new bytes alone (the stored
/// text's first bytes are its own). `None` when there is no such tip, the
/// record is not such a continuation or its new part fails, or the stored
/// text cannot be continued so (a header that changes, as when the game
/// ends): the stored text is left as it was, and the record is verified
/// and appended as a whole.
fn continued_from_tip(
    stored: &mut Stored,
    bytes: &[u8],
) -> Option<(FromTip, SignedReplay, Option<String>)> {
    // The stored text, checked as UTF-8 once, and appended to where it is
    // (80 kB at ply 300, not copied); put back whatever happens.
    let mut kept = match String::from_utf8(std::mem::take(&mut stored.text)) {
        Ok(kept) => kept,
        Err(e) => {
            stored.text = e.into_bytes();
            return None;
        }
    };
    let continued = continue_text(stored, &mut kept, bytes);
    stored.text = kept.into_bytes();
    continued
}

/// [`continued_from_tip`] with the stored text `kept` taken out of
/// `stored`.
fn continue_text(
    stored: &Stored,
    kept: &mut String,
    bytes: &[u8],
) -> Option<(FromTip, SignedReplay, Option<String>)> {
    let (before, bounds, digest) = stored.tip_of(kept)?;
    let text = std::str::from_utf8(bytes).ok()?;
    let After::Replayed { replay, .. } = replay_after(text, kept, bounds, &before, Known::Nothing)
    else {
        return None;
    };
    let known = before.events().len();
    // The prose of each new event, as the sender wrote it: read from the
    // mail's new part alone (its first comment continues one of the stored
    // events', whose prose is not new).
    let said = new_prose(text, bounds, known);
    let prose_of = |seq: usize| {
        u32::try_from(seq)
            .ok()
            .and_then(|seq| said.iter().find(|(s, _)| *s == seq))
            .map(|(_, p)| p.clone())
    };
    let appended = append_each_verified_in_place(kept, bounds, &replay, known, &prose_of)?;
    let new_bounds = Bounds::after_append(kept, bounds.movetext);
    // The record's first bytes are the stored text's up to the cut
    // (`replay_after` compared them), which the tip's digest is of: its
    // SHA-256 is finished over the rest alone.
    let checksum = digest.finish(bytes).map(hex::encode);
    let tip = FromTip {
        before: Box::new(before),
        bounds,
        digest,
        appended,
        new_bounds,
        said,
    };
    Some((tip, *replay, checksum))
}

/// A turn mail's record read from the stored game's tip: see
/// [`continued_from_tip`].
struct FromTip {
    /// The stored record's replay, restored.
    before: Box<SignedReplay>,
    /// The stored text's bounds.
    bounds: Bounds,
    /// The digest of the stored text's first bytes, from its tip.
    digest: PrefixDigest,
    /// How the new events were appended to the stored text, in its own
    /// buffer (`Stored::text`).
    appended: AppendedInPlace,
    /// The bounds of the text with the new events.
    new_bounds: Option<Bounds>,
    /// The prose of each new event, cleaned, by position.
    said: Vec<(u32, String)>,
}

/// What is known of the stored game a record continues.
enum StoredAs {
    /// Its events, decoded from its record; the record received read as
    /// one, and its signed view, that the replay was made from.
    Events {
        events: Vec<SignedEvent>,
        record: yam_notation::Record<String>,
        signed: SignedText,
    },
    /// Its replay restored from its tip: the record received continues
    /// its text byte for byte ([`continued_from_tip`]).
    Tip(Box<FromTip>),
}

/// A record that verified, and the stored game it continues, if any.
struct Verified {
    stored: Option<(Stored, StoredAs)>,
    replay: SignedReplay,
}

fn verified_record(
    desk: &mut Desk,
    from: &str,
    bytes: &[u8],
    envelope: Envelope<'_>,
    referee: Option<&str>,
    verified: Verified,
) -> Outcome {
    let Verified { stored, replay } = verified;
    let Some(id) = replay
        .events()
        .first()
        .map(|e| e.event.game.as_str().to_owned())
    else {
        return Outcome::Refused(format!("from {from}: the record has no opening"));
    };
    let Some(sender) = desk.contacts.by_address(from).cloned() else {
        // A known player writing from a new address (or a list that
        // rewrites From): say who, and how the game goes on.
        let author = replay.events().last().map(|e| e.event.author);
        if let Some(known) = author.and_then(|key| desk.contacts.by_key(&key)) {
            return Outcome::Refused(format!(
                "game {id}: the turn is signed by {} <{}>, but the mail is from {from}. If {} has moved, ask them to send their card from the new address (`yam identity send {}`), which moves the game there, and then the turn again (`yam resend {id}`)",
                known.name,
                known.address,
                known.name,
                desk.address()
            ));
        }
        // The game's own opponent, whose contact is gone (`yam identity
        // forget`): said so, with the way on, not "never read".
        if stored
            .as_ref()
            .is_some_and(|(s, _)| crate::mail::address::same(&s.meta.opponent, from))
        {
            return Outcome::Refused(format!(
                "game {id}: the mail is from {from}, the game's opponent, whose card this desk no longer keeps (forgotten?): ask them to send it again (`yam identity send {}`), read it, and then this mail again",
                desk.address()
            ));
        }
        return Outcome::Refused(format!(
            "game {id}: the mail is from {from}, an address not in the game (no card from it was ever read)"
        ));
    };
    let sender_key = sender.public_key();
    let in_game = replay
        .parties()
        .iter()
        .chain(replay.challenge().map(|c| &c.challenger))
        .any(|p| Some(p.key) == sender_key);
    if !in_game {
        return Outcome::Refused(format!(
            "game {id}: the mail is from {from}, whose key is not a party of this game"
        ));
    }
    if let Some((stored, known)) = stored {
        // A closed challenge takes nothing more: an acceptance that
        // crossed my withdrawal, a turn after a decline.
        if let Some(closed) = &stored.meta.closed {
            return Outcome::Ignored(format!(
                "game {id}: {} This mail changes nothing.",
                closed.describe()
            ));
        }
        let arrival = match known {
            StoredAs::Events {
                events,
                record,
                signed,
            } => Arrival {
                stored,
                events,
                record,
                signed,
                replay,
            },
            StoredAs::Tip(tip) => {
                return continue_from_tip(desk, stored, *tip, replay, from, sender_key, envelope);
            }
        };
        return continue_game(desk, arrival, from, sender_key, envelope);
    }
    // A game not stored: only a fresh challenge to me starts one.
    let me = desk.key();
    let invites_me = replay.challenge().is_some_and(|c| c.invited.contains(&me));
    if replay.events().len() == 1 && invites_me {
        // A desk plays two-player games with the challenger alone, and its
        // own challenges invite one key. One that invites another key
        // beside mine (a second key of the challenger's, seatless but
        // holding a chain, awaited on every roll and answering last) was
        // taken without a word, and once accepted the game waited for
        // ever for that key, every way out refused
        // (`a_challenge_that_invites_another_key_beside_me_is_not_taken_unseen`).
        let others: Vec<String> = replay
            .challenge()
            .map(|c| {
                c.invited
                    .iter()
                    .filter(|k| **k != me)
                    .map(|k| k.fingerprint().to_string())
                    .collect()
            })
            .unwrap_or_default();
        if !others.is_empty() {
            return Outcome::Refused(format!(
                "game {id}: the challenge invites {} beside you ({}): a desk plays two-player games with the challenger alone; nothing is stored",
                if others.len() == 1 {
                    "another key"
                } else {
                    "other keys"
                },
                others.join(", ")
            ));
        }
        // The referee the challenge names (an unsigned header) is checked
        // as `yam challenge --referee` checks it: a value that is no single
        // address was kept, and no mail of the game could then be built,
        // not even the acceptance or the decline.
        if let Some(referee) = referee
            && (referee.parse::<lettre::Address>().is_err()
                || crate::mail::address::same(referee, from)
                || crate::mail::address::same(referee, &desk.address()))
        {
            return Outcome::Refused(format!(
                "game {id}: the challenge names as its referee {:?}, which is not the address of a referee robot (neither yours nor the challenger's); nothing is stored: ask {from} to send the challenge again",
                crate::mail::cards::clean_text(referee)
            ));
        }
        return match act::store_challenge(desk, bytes, &replay, &sender, referee.map(str::to_owned))
        {
            Ok(game) => {
                if let Some(message_id) = envelope.message_id {
                    thread(desk, &game, message_id);
                }
                Outcome::Challenged {
                    game,
                    forfeit_days: act::agreed_forfeit_days(bytes)
                        .unwrap_or(super::DEFAULT_FORFEIT_DAYS),
                    by: format!(
                        "{} <{}> (key fingerprint {}){}",
                        sender.name,
                        sender.address,
                        sender.fingerprint,
                        referee
                            .map(|r| format!(", refereed by {r}, which gets a copy of every mail"))
                            .unwrap_or_default()
                    ),
                }
            }
            Err(e) => Outcome::Refused(e.to_string()),
        };
    }
    Outcome::Refused(format!(
        "game {id}: not a game of this data directory (and not a new challenge to you)"
    ))
}

/// A mail's record, verified, and the stored game it may continue.
struct Arrival {
    stored: Stored,
    events: Vec<SignedEvent>,
    record: yam_notation::Record<String>,
    signed: SignedText,
    replay: SignedReplay,
}

/// [`continue_game`] for a record walked from the stored game's tip
/// ([`continued_from_tip`]): it continues the stored text byte for byte,
/// so the stored events are its first ones and only its new events are
/// judged (each must be signed by the sender); they were printed after my
/// own text, each with the prose the sender gave it (cleaned), and my text
/// is checked from my tip's replay before it is written.
fn continue_from_tip(
    desk: &mut Desk,
    kept: Stored,
    tip: FromTip,
    replay: SignedReplay,
    from: &str,
    sender: Option<yam_referee::fair_play::sign::PublicKey>,
    envelope: Envelope<'_>,
) -> Outcome {
    let id = match arriving_game(&kept, &replay, from) {
        Ok(id) => id,
        Err(refused) => return refused,
    };
    let id = id.as_str();
    let known = tip.before.events().len();
    let received = replay.events();
    if received.len() == known {
        return Outcome::AlreadyKnown(format!("game {id}: read before; nothing changes"));
    }
    let new_events = received.slice(known..received.len());
    if let Some(foreign) = new_events.iter().find(|e| Some(e.event.author) != sender) {
        return foreign_event(desk, id, foreign, from);
    }
    let FromTip {
        before,
        bounds,
        digest,
        appended,
        new_bounds,
        said,
    } = tip;
    let game = match kept.continued(*before, bounds, digest, Some(appended), new_bounds, replay) {
        Ok(game) => game,
        Err(e) => return Outcome::Refused(format!("game {id}: {e}")),
    };
    arrived(desk, game, id, (&new_events, &said), sender, envelope)
}

/// The prose the sender gave each event from position `known` on, cleaned,
/// read from what follows the stored text's bounds in the mail's record.
fn new_prose(text: &str, bounds: Bounds, known: usize) -> Vec<(u32, String)> {
    // The new part as the walk read it (`Bounds::new_part`); the prose of
    // the cut comment opened anew is dropped: it belongs to the stored
    // event that comment began with.
    let Some(fragment) = bounds.new_part(text) else {
        return Vec::new();
    };
    let Ok(mut record) = yam_notation::parse_record::<yam_notation::RawGrammar>(&fragment) else {
        return Vec::new();
    };
    if let Some(yam_notation::Node::Comment(first)) = record.movetext.first_mut() {
        first
            .parts
            .retain(|p| !matches!(p, yam_notation::CommentPart::Text(_)));
    }
    let mut said: Vec<(u32, String)> = prose_by_event(&record)
        .into_iter()
        .filter(|(seq, _)| usize::try_from(*seq).is_ok_and(|s| s >= known))
        .map(|(seq, prose)| (seq, clean_prose(&prose)))
        .collect();
    said.sort_by_key(|(seq, _)| *seq);
    said
}

fn continue_game(
    desk: &mut Desk,
    arrival: Arrival,
    from: &str,
    sender: Option<yam_referee::fair_play::sign::PublicKey>,
    envelope: Envelope<'_>,
) -> Outcome {
    let Arrival {
        stored: mut kept,
        events: stored,
        record,
        signed,
        replay,
    } = arrival;
    let id = match arriving_game(&kept, &replay, from) {
        Ok(id) => id,
        Err(refused) => return refused,
    };
    let id = id.as_str();
    let received = replay.events().all();
    let new = match adoption(&stored, &received, sender) {
        Adoption::New(n) => n,
        Adoption::Crossed {
            common,
            stands: Stands::Kept,
        } => {
            return crossing_kept(
                desk,
                kept,
                id,
                &record,
                (&received[common..], &stored[common..]),
                common,
                envelope,
            );
        }
        Adoption::Crossed {
            common,
            stands: Stands::Received,
        } => {
            let arrival = Arrival {
                stored: kept,
                events: stored,
                record,
                signed,
                replay,
            };
            return crossing_received(desk, arrival, id, common, sender, envelope);
        }
        Adoption::Fork(common) => {
            return Outcome::Refused(format!(
                "game {id}: a forked history: the mail's record and yours share their first {common} events and differ from event #{common} on (compare them with `yam dispute`)"
            ));
        }
        Adoption::Same => {
            return Outcome::AlreadyKnown(format!("game {id}: read before; nothing changes"));
        }
        // An earlier state of the game (a late or duplicated delivery, a
        // copy a reply carries): nothing new, and nothing wrong.
        Adoption::Old => {
            return Outcome::AlreadyKnown(format!(
                "game {id}: an earlier turn ({} event{}; the game has {}): nothing new",
                received.len(),
                if received.len() == 1 { "" } else { "s" },
                stored.len()
            ));
        }
        Adoption::Foreign(foreign) => return foreign_event(desk, id, foreign, from),
    };
    // My record stays mine: the new events are appended to my own text,
    // each with the prose the sender gave it; nothing the sender changed in
    // what I kept enters it.
    let place = kept.locked.dir().join("record.yam");
    let (merged, said) = match continue_kept(
        &kept.text,
        kept.record.take(),
        &record,
        &replay,
        stored.len(),
        &place,
    ) {
        Ok(continued) => (continued.record, continued.said),
        Err(e) => return Outcome::Refused(format!("game {id}: {e}")),
    };
    let new_events: Vec<SignedEvent> = received[stored.len()..].to_vec();
    debug_assert_eq!(new_events.len(), new);
    let game = Game::adopt(kept, merged, signed, replay);
    arrived(desk, game, id, (&new_events, &said), sender, envelope)
}

/// A mail whose events crossed mine in the mail and are void: they were
/// signed without the pen (a resignation, a forfeit claim) while my step,
/// on the same event, was on its way (`docs/fair-play.md`, 3.10). My
/// record stands as it is; theirs is kept beside it as evidence, and the
/// mail is dealt with: their desk takes my step when it reads my mail,
/// and signs a resignation again after it.
fn crossing_kept(
    desk: &Desk,
    mut kept: Stored,
    id: &str,
    record: &yam_notation::Record<String>,
    (void, standing): (&[SignedEvent], &[SignedEvent]),
    common: usize,
    envelope: Envelope<'_>,
) -> Outcome {
    let evidence = match keep_crossed(
        &kept,
        common,
        yam_notation::record_to_string::<yam_notation::RawGrammar>(record).as_bytes(),
    ) {
        Ok(path) => path,
        Err(e) => return Outcome::Refused(format!("game {id}: {e}")),
    };
    let mut changed = false;
    if let Some(m) = envelope.message_id
        && !kept.meta.thread.iter().any(|t| t == m)
    {
        crate::mail::thread::add(&mut kept.meta.thread, m);
        changed = true;
    }
    // Her resignation is void, not taken back: her next event must be it,
    // signed again after my step.
    // (Not when she has signed after my step already: the resignation
    // signed again, read before this late copy of the void one.)
    if let Some(resigner) = void_resigner(void)
        && kept.meta.resignation_owed.is_none()
        && !standing.iter().any(|e| e.event.author == resigner)
    {
        kept.meta.resignation_owed = Some(ResignationOwed {
            key: hex::encode(resigner.as_bytes()),
            evidence: evidence
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        });
        if let Err(e) = kept.save_meta() {
            return Outcome::Refused(format!("game {id}: {e}"));
        }
    } else if changed {
        // Threading is a courtesy: a failure here loses no game state.
        let _ = kept.save_meta();
    }
    let who = void
        .first()
        .map(|e| desk.name_of(&e.event.author))
        .unwrap_or_default();
    Outcome::Applied {
        game: id.to_owned(),
        news: vec![format!(
            "game {id}: {who}'s {} crossed your step in the mail (signed on event #{}, as your step was); by the crossing rule your step stands and theirs is void: their desk takes your step when it reads your mail{}. Their record is kept as evidence in {}",
            void_events(void),
            common.saturating_sub(1),
            if void
                .iter()
                .any(|e| matches!(e.event.body, EventBody::Resignation))
            {
                ", and signs the resignation again after it"
            } else {
                ""
            },
            evidence.display()
        )],
    }
}

/// A mail whose events stand over mine, which crossed them in the mail
/// and are void (`docs/fair-play.md`, 3.10): my record goes back to the
/// events both share (everything else I wrote in it stays) and takes the
/// mail's from there; mine are kept beside it as evidence. A resignation
/// of mine is signed again after the step that stood, and mailed.
fn crossing_received(
    desk: &mut Desk,
    arrival: Arrival,
    id: &str,
    common: usize,
    sender: Option<yam_referee::fair_play::sign::PublicKey>,
    envelope: Envelope<'_>,
) -> Outcome {
    let Arrival {
        stored: mut kept,
        events: stored,
        record,
        signed,
        replay,
    } = arrival;
    let received = replay.events().all();
    if let Some(foreign) = received[common..]
        .iter()
        .find(|e| Some(e.event.author) != sender)
    {
        return foreign_event(desk, id, foreign, &kept.meta.opponent);
    }
    let mine = match kept.record.take() {
        Some(r) => r,
        None => match std::str::from_utf8(&kept.text)
            .ok()
            .and_then(|t| yam_notation::parse_record::<yam_notation::RawGrammar>(t).ok())
        {
            Some(r) => r,
            None => return Outcome::Refused(format!("game {id}: the stored record does not read")),
        },
    };
    let Some(cut) = crate::game::record::without_events_from(&mine, common) else {
        return Outcome::Refused(format!(
            "game {id}: a forked history: the mail's record and yours share their first {common} events and differ from event #{common} on (compare them with `yam dispute`)"
        ));
    };
    let evidence = match keep_crossed(&kept, common, &kept.text) {
        Ok(path) => path,
        Err(e) => return Outcome::Refused(format!("game {id}: {e}")),
    };
    let cut_text = yam_notation::record_to_string::<yam_notation::RawGrammar>(&cut);
    let place = kept.locked.dir().join("record.yam");
    let (merged, said) = match continue_kept(
        cut_text.as_bytes(),
        Some(cut),
        &record,
        &replay,
        common,
        &place,
    ) {
        Ok(continued) => (continued.record, continued.said),
        Err(e) => return Outcome::Refused(format!("game {id}: {e}")),
    };
    let void = &stored[common..];
    let resigned = void
        .iter()
        .any(|e| matches!(e.event.body, EventBody::Resignation));
    let new_events: Vec<SignedEvent> = received[common..].to_vec();
    let mut game = Game::adopt(kept, merged, signed, replay);
    let mut news = took(desk, &mut game, id, (&new_events, &said), sender, envelope);
    news.insert(
        1,
        format!(
            "game {id}: your {} crossed this step in the mail (both signed on event #{}); by the crossing rule the step of the player the game waited for stands, and yours is void. Your record as it was is kept as evidence in {}",
            void_events(void),
            common.saturating_sub(1),
            evidence.display()
        ),
    );
    // The mail of my void event, if it never went out, must not: the
    // outbox keeps only its words, and the record it would carry now is
    // the one that stands, which the sender has.
    if game.meta.outbox.take().is_some() {
        news.push(format!(
            "game {id}: the mail of your void {}, not sent yet, is not sent",
            void_events(void)
        ));
    }
    let mut done = Vec::new();
    if resigned {
        match act::resign_again(desk, &mut game) {
            Ok(Some(words)) => done.push(words),
            Ok(None) => {}
            // The step that stands is taken all the same: the player
            // resigns by hand, told why.
            Err(e) => news.push(format!(
                "game {id}: your resignation could not be signed again ({e}); `yam resign {id}` resigns"
            )),
        }
    } else if next_duty(&game.replay).is_some() {
        news.push(format!(
            "game {id}: a forfeit claim, if it still lies, is made again with `yam forfeit {id}`; if the step came after the agreed days, the kept record and this mail are for a director"
        ));
    }
    finish_arrival_with(desk, game, id, news, done)
}

/// The void events of a crossing, in words.
fn void_events(void: &[SignedEvent]) -> String {
    let words: Vec<&str> = void
        .iter()
        .map(|e| match e.event.body {
            EventBody::Resignation => "resignation",
            _ => "forfeit claim",
        })
        .collect();
    words.join(" and ")
}

/// Keeps `text`, a record of game `kept` whose events from `common` on are
/// void by the crossing rule, beside the game as evidence:
/// `crossed-COMMON.yam` (a second such record at the same place, say a
/// claim crossed and then a resignation, gets `crossed-COMMON-2.yam`,
/// and so on; the very same text is kept once).
fn keep_crossed(kept: &Stored, common: usize, text: &[u8]) -> Result<std::path::PathBuf, Error> {
    let dir = kept.locked.dir();
    for n in 1..=100u32 {
        let name = if n == 1 {
            format!("crossed-{common}.yam")
        } else {
            format!("crossed-{common}-{n}.yam")
        };
        let path = dir.join(name);
        match std::fs::read(&path) {
            Ok(there) if there == text => return Ok(path),
            Ok(_) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                crate::store::atomic::write(&path, text, true)
                    .map_err(|e| Error::usage(format!("cannot keep {}: {e}", path.display())))?;
                return Ok(path);
            }
            Err(e) => return Err(Error::usage(format!("cannot read {}: {e}", path.display()))),
        }
    }
    Err(Error::usage(format!(
        "{}: a hundred crossed records are kept already",
        dir.display()
    )))
}

/// The game a verified record is of, if the mail comes from the player
/// the stored game is played with; otherwise the refusal.
fn arriving_game(kept: &Stored, replay: &SignedReplay, from: &str) -> Result<String, Outcome> {
    let id = replay
        .events()
        .first()
        .map(|e| e.event.game.as_str().to_owned())
        .unwrap_or_default();
    if !crate::mail::address::same(&kept.meta.opponent, from) {
        return Err(Outcome::Refused(format!(
            "game {id}: the mail is from {from}, but the game is played with {}",
            kept.meta.opponent
        )));
    }
    Ok(id)
}

/// The refusal of a new event signed by another than the sender.
fn foreign_event(desk: &Desk, id: &str, foreign: &SignedEvent, from: &str) -> Outcome {
    Outcome::Refused(format!(
        "game {id}: event {} is signed by {}, not by the sender {from}",
        foreign.event.seq,
        desk.name_of(&foreign.event.author)
    ))
}

/// The game that took a mail's new events: its players named, its
/// bookkeeping and thread brought up to date, and the news of the events
/// told; then what follows ([`finish_arrival`]).
fn arrived(
    desk: &mut Desk,
    mut game: Game,
    id: &str,
    (new_events, said): (&[SignedEvent], &[(u32, String)]),
    sender: Option<yam_referee::fair_play::sign::PublicKey>,
    envelope: Envelope<'_>,
) -> Outcome {
    // A resignation owed again after a crossing (3.10): her next event
    // must be it.
    if let Some(owed) = game.meta.resignation_owed.clone()
        && let Some(resigner) = yam_referee::fair_play::sign::PublicKey::from_hex(&owed.key)
    {
        if let Some(instead) = resignation_taken_back(&resigner, new_events) {
            return Outcome::Refused(format!(
                "game {id}: {who} resigned (the resignation crossed your step in the mail and is kept in {}); a resignation is not taken back by crossing (docs/fair-play.md, 3.10), and this mail's event #{} by {who} is not that resignation signed again: not taken. The game is for a director (`yam dispute` on {} and the mail's record)",
                owed.evidence,
                instead.event.seq,
                owed.evidence,
                who = desk.name_of(&resigner)
            ));
        }
        if new_events
            .iter()
            .any(|e| e.event.author == resigner && matches!(e.event.body, EventBody::Resignation))
        {
            game.meta.resignation_owed = None;
        }
    }
    let news = took(desk, &mut game, id, (new_events, said), sender, envelope);
    finish_arrival(desk, game, id, news)
}

/// What a mail says of itself that a game's bookkeeping keeps: its
/// Message-ID (the thread) and when it says it was sent (its `Date`).
#[derive(Debug, Clone, Copy, Default)]
struct Envelope<'a> {
    message_id: Option<&'a str>,
    sent_at: Option<u64>,
}

/// What taking a mail's new events into `game` writes in its bookkeeping
/// (the players named, the clocks, the thread), and the news of them:
/// every arrival's, a crossing's too.
fn took(
    desk: &Desk,
    game: &mut Game,
    id: &str,
    (new_events, said): (&[SignedEvent], &[(u32, String)]),
    sender: Option<yam_referee::fair_play::sign::PublicKey>,
    envelope: Envelope<'_>,
) -> Vec<String> {
    // The events read may settle the seats (the other desk revealed the
    // draw): my record names the players then, as the sender's does, from
    // the names fixed at the challenge; a name I wrote stays.
    game.name_players(desk);
    let before = game.meta.changed;
    game.meta.changed_by(new_events, &game.replay);
    if let Some(sent_at) = envelope.sent_at
        && next_duty(&game.replay) == Some(Duty::Move(desk.key()))
    {
        game.meta.owed_since_sent(before, sent_at);
    }
    if let Some(m) = envelope.message_id {
        crate::mail::thread::add(&mut game.meta.thread, m);
    }
    let mut news = vec![format!(
        "game {id}: {} new event(s) from {}",
        new_events.len(),
        desk.name_of(&sender.unwrap_or(desk.key()))
    )];
    news.extend(super::body::what_happened(desk, new_events, said));
    news
}

/// What follows reading a turn: the steps Yam takes by itself (a roll's
/// answer), the game and its bookkeeping written, the answer sent.
fn finish_arrival(desk: &mut Desk, game: Game, id: &str, news: Vec<String>) -> Outcome {
    finish_arrival_with(desk, game, id, news, Vec::new())
}

/// [`finish_arrival`] after the steps `done` Yam already took by itself
/// (in words): they go in the same mail.
fn finish_arrival_with(
    desk: &mut Desk,
    mut game: Game,
    id: &str,
    mut news: Vec<String>,
    mut automatic: Vec<String>,
) -> Outcome {
    match act::advance(desk, &mut game) {
        Ok(said) => automatic.extend(said),
        Err(e) => return Outcome::Refused(format!("game {id}: {e}")),
    };
    // The record and the bookkeeping (the answer already threaded in it)
    // go to disk together, before any mail goes out.
    let answer = !automatic.is_empty();
    if answer {
        game.queue_mail(desk, &automatic.join("\n"), Automatic::Generated);
    }
    if let Err(e) = game.save() {
        return Outcome::Refused(e.to_string());
    }
    if answer {
        if let Err(e) = game.flush(desk) {
            news.push(act::unsent(&game, &e).to_string());
        }
        news.extend(automatic);
    }
    news.push(super::body::whose_turn(&game, desk));
    if next_duty(&game.replay) == Some(Duty::Move(desk.key())) {
        news.push(format!("Your move: yam move {id} ..."));
    }
    Outcome::Applied {
        game: id.to_owned(),
        news,
    }
}
