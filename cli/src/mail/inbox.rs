//! A mailbox Yam reads, whatever it is: one type for the desk and the
//! robot, IMAP, Maildir or mbox, each listed before anything is read.
//!
//! A listing gives each mail's place and size, without its body (IMAP:
//! `UID` and `RFC822.SIZE`; Maildir: the file's name and size; mbox: the
//! message's offset and size in the file). The reader then fetches only
//! the mails it has not handled before, and only those under the size it
//! accepts, one at a time: memory stays bounded by the largest mail Yam
//! accepts, whatever the mailbox holds. An IMAP mailbox is read in one
//! session (one login) however many mails it fetches and marks.

use std::io::{BufRead, Read, Seek};
use std::path::{Path, PathBuf};

use futures_util::StreamExt;

use super::imap::{ImapAccount, ImapError};

/// A mailbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mailbox {
    /// A mailbox on an IMAP server.
    Imap(ImapAccount),
    /// A Maildir (`cur/`, `new/`, `tmp/`).
    Maildir(PathBuf),
    /// An mbox file.
    Mbox(PathBuf),
}

/// Where a mail stands in its mailbox.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Place {
    /// An IMAP message: the mailbox's UIDVALIDITY and the message's UID.
    Imap {
        /// The mailbox's UIDVALIDITY (UIDs are valid within it).
        validity: u32,
        /// The message's UID.
        uid: u32,
    },
    /// A Maildir file: its path.
    File(PathBuf),
    /// An mbox message: its byte offset in the file, its length, and a
    /// digest of its bytes.
    Mbox {
        /// Where its `From ` line starts.
        offset: u64,
        /// Its length in bytes, to the next `From ` line or the end.
        size: u64,
        /// The first 16 bytes of its BLAKE3 hash: what names it.
        digest: [u8; 16],
    },
}

impl Place {
    /// A name for the mail that stays the same as long as the mail is
    /// where it is: the IMAP mailbox's validity and UID, a Maildir file's
    /// unique name (without the flags a client appends), an mbox offset and
    /// length.
    pub fn key(&self) -> String {
        match self {
            Place::Imap { validity, uid } => format!("imap:{validity}:{uid}"),
            Place::File(path) => {
                let name = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let base = name.split_once(":2,").map_or(name.as_str(), |(b, _)| b);
                format!("maildir:{base}")
            }
            // By its bytes, not where they are: named by offset and
            // length, a second mail of one length delivered where the
            // first had been (a spool emptied by every read, Yam's own
            // challenges all of one length) was passed over unread, and
            // one old mail deleted moved every mail after it to a new
            // offset, read again and remembered again. (Before that an
            // offset alone named a mail the MTA was still appending.)
            Place::Mbox { size, digest, .. } => {
                format!("mbox:{size}:{}", hex::encode(digest))
            }
        }
    }
}

/// Where Yam files its own mails once it has dealt with them (an option of
/// the configuration): out of the inbox it shares with personal mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Folder {
    /// An IMAP folder on the same account (created if missing).
    Imap(String),
    /// Another Maildir (created if missing), e.g. `~/Maildir/.Yam`.
    Maildir(PathBuf),
}

/// What filing did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filed {
    /// The mails were moved.
    Moved,
    /// The server can neither move nor expunge by UID: the mails were
    /// copied and left in the inbox (marked read), since expunging
    /// without UIDs could remove mail that is not Yam's.
    CopiedOnly,
}

/// A mail listed, before its body is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// Where it is.
    pub place: Place,
    /// Its size in bytes.
    pub size: u64,
}

/// Why a mailbox could not be read.
#[derive(Debug, thiserror::Error)]
pub enum InboxError {
    /// A local mailbox could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The mailbox.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The mailbox named does not exist, or is not a mailbox.
    #[error("{}: {what}", path.display())]
    NotAMailbox {
        /// The path.
        path: PathBuf,
        /// What is wrong.
        what: &'static str,
    },
    /// The IMAP server.
    #[error(transparent)]
    Imap(#[from] ImapError),
}

impl InboxError {
    /// Whether a listed mail's file is no longer where the listing saw it:
    /// a mail client moved it (from `new/` to `cur/`, marked seen), or
    /// another reader filed it. It is listed at its new place by the next
    /// look (a Maildir mail's place is its unique name, whatever its
    /// flags), so the mail is passed over, not the read failed.
    pub fn is_moved_away(&self) -> bool {
        matches!(self, InboxError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    }
}

/// A mailbox opened for one round of reading: one IMAP session, or the
/// local files.
pub struct Session {
    mailbox: Mailbox,
    imap: Option<ImapSession>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("mailbox", &self.mailbox)
            .finish_non_exhaustive()
    }
}

struct ImapSession {
    runtime: tokio::runtime::Runtime,
    session: async_imap::Session<super::imap::Stream>,
    validity: u32,
}

impl Mailbox {
    /// Opens the mailbox: logs in (IMAP), or checks that the folder or the
    /// file is there.
    pub fn open(&self) -> Result<Session, InboxError> {
        let imap = match self {
            Mailbox::Imap(account) => Some(ImapSession::open(account)?),
            Mailbox::Maildir(dir) => {
                if !dir.join("new").is_dir() || !dir.join("cur").is_dir() {
                    return Err(InboxError::NotAMailbox {
                        path: dir.clone(),
                        what: "not a Maildir (it needs cur/, new/ and tmp/)",
                    });
                }
                None
            }
            Mailbox::Mbox(file) => {
                if !file.is_file() {
                    return Err(InboxError::NotAMailbox {
                        path: file.clone(),
                        what: "no mbox file here",
                    });
                }
                None
            }
        };
        Ok(Session {
            mailbox: self.clone(),
            imap,
        })
    }
}

impl Session {
    /// Every mail of the mailbox, oldest first, with its size; no body is
    /// read. IMAP lists the UIDs from `after` on (all when `None`).
    pub fn list(&mut self, after: Option<u32>) -> Result<Vec<Listed>, InboxError> {
        self.list_new(after, |_| false)
    }

    /// As [`Session::list`], without the mails `known` says were handled
    /// before. A Maildir passes them over by name, before their sizes are
    /// asked of the file system: a desk's inbox keeps its old personal
    /// mail, and a look that asked the size of every one of them would
    /// cost as much as the mailbox holds rather than what is new in it.
    pub fn list_new(
        &mut self,
        after: Option<u32>,
        known: impl Fn(&Place) -> bool,
    ) -> Result<Vec<Listed>, InboxError> {
        let listed = match (&self.mailbox, self.imap.as_mut()) {
            (Mailbox::Imap(_), Some(imap)) => imap.list(after)?,
            (Mailbox::Maildir(dir), _) => {
                return list_maildir(dir, |path| known(&Place::File(path.to_path_buf())));
            }
            (Mailbox::Mbox(file), _) => list_mbox(file)?,
            (Mailbox::Imap(_), None) => Vec::new(),
        };
        Ok(listed.into_iter().filter(|l| !known(&l.place)).collect())
    }

    /// The mails not yet marked read, oldest first, with their sizes; no
    /// body is read. For a mailbox of its own (the robot's), where every
    /// mail handled is marked read: a Maildir's read files are passed over
    /// by name, IMAP asks the server (`UID SEARCH UNSEEN`).
    pub fn list_unseen(&mut self) -> Result<Vec<Listed>, InboxError> {
        match (&self.mailbox, self.imap.as_mut()) {
            (Mailbox::Imap(_), Some(imap)) => Ok(imap.list_unseen()?),
            (Mailbox::Maildir(dir), _) => list_maildir(dir, super::maildir::is_seen),
            (Mailbox::Mbox(file), _) => list_mbox(file),
            (Mailbox::Imap(_), None) => Ok(Vec::new()),
        }
    }

    /// The mailbox's UIDVALIDITY, for an IMAP mailbox.
    pub fn validity(&self) -> Option<u32> {
        self.imap.as_ref().map(|i| i.validity)
    }

    /// The raw bytes of a listed mail (never more than `listed.size`).
    pub fn fetch(&mut self, listed: &Listed) -> Result<Vec<u8>, InboxError> {
        match (&listed.place, self.imap.as_mut()) {
            (Place::Imap { uid, .. }, Some(imap)) => Ok(imap.fetch(*uid)?),
            (Place::File(path), _) => {
                read_listed_file(path, listed.size).map_err(|source| InboxError::Io {
                    path: path.clone(),
                    source,
                })
            }
            (Place::Mbox { offset, .. }, _) => {
                let Mailbox::Mbox(file) = &self.mailbox else {
                    return Ok(Vec::new());
                };
                read_mbox_message(file, *offset, listed.size).map_err(|source| InboxError::Io {
                    path: file.clone(),
                    source,
                })
            }
            (Place::Imap { .. }, None) => Ok(Vec::new()),
        }
    }

    /// The first `limit` bytes of a listed mail at most (IMAP: of its
    /// header, `BODY.PEEK[HEADER]<0.limit>`), to decide by its header
    /// whether to read it whole.
    pub fn fetch_head(&mut self, listed: &Listed, limit: u64) -> Result<Vec<u8>, InboxError> {
        let cut = listed.size.min(limit);
        match (&listed.place, self.imap.as_mut()) {
            (Place::Imap { uid, .. }, Some(imap)) => Ok(imap.fetch_head(*uid, limit)?),
            (Place::File(path), _) => {
                read_listed_file(path, cut).map_err(|source| InboxError::Io {
                    path: path.clone(),
                    source,
                })
            }
            (Place::Mbox { offset, .. }, _) => {
                let Mailbox::Mbox(file) = &self.mailbox else {
                    return Ok(Vec::new());
                };
                read_mbox_message(file, *offset, cut).map_err(|source| InboxError::Io {
                    path: file.clone(),
                    source,
                })
            }
            (Place::Imap { .. }, None) => Ok(Vec::new()),
        }
    }

    /// Marks Yam's own mails as read where they are, in one go (IMAP: one
    /// `UID STORE`; Maildir: each file to `cur/` with the Seen flag, as a
    /// mail client does; mbox: nothing, the file is never written). Mails
    /// that are not Yam's are never passed here: Yam changes nothing of
    /// them.
    pub fn mark_seen(&mut self, places: &[Place]) -> Result<(), InboxError> {
        let uids: Vec<u32> = places
            .iter()
            .filter_map(|p| match p {
                Place::Imap { uid, .. } => Some(*uid),
                _ => None,
            })
            .collect();
        if let (false, Some(imap)) = (uids.is_empty(), self.imap.as_mut()) {
            imap.mark_seen(&uids)?;
        }
        for place in places {
            if let Place::File(path) = place {
                super::maildir::mark_seen(path).map_err(|source| InboxError::Io {
                    path: path.clone(),
                    source,
                })?;
            }
        }
        Ok(())
    }

    /// Files Yam's own mails (already dealt with) into `folder`. Only the
    /// places given move; nothing else of the mailbox is touched.
    pub fn file_into(&mut self, places: &[Place], folder: &Folder) -> Result<Filed, InboxError> {
        if places.is_empty() {
            return Ok(Filed::Moved);
        }
        match (folder, self.imap.as_mut()) {
            (Folder::Imap(name), Some(imap)) => {
                let uids: Vec<u32> = places
                    .iter()
                    .filter_map(|p| match p {
                        Place::Imap { uid, .. } => Some(*uid),
                        _ => None,
                    })
                    .collect();
                Ok(imap.file_into(&uids, name)?)
            }
            (Folder::Maildir(target), None) => {
                let io = |source| InboxError::Io {
                    path: target.clone(),
                    source,
                };
                for sub in ["cur", "new", "tmp"] {
                    std::fs::create_dir_all(target.join(sub)).map_err(io)?;
                }
                for place in places {
                    if let Place::File(path) = place {
                        super::maildir::move_into(path, target).map_err(|source| {
                            InboxError::Io {
                                path: path.clone(),
                                source,
                            }
                        })?;
                    }
                }
                Ok(Filed::Moved)
            }
            _ => Err(InboxError::NotAMailbox {
                path: PathBuf::from(match folder {
                    Folder::Imap(name) => name.clone(),
                    Folder::Maildir(p) => p.display().to_string(),
                }),
                what: "a folder to file into must be of the mailbox's own kind (IMAP or Maildir)",
            }),
        }
    }

    /// Logs out (IMAP); local mailboxes need nothing.
    pub fn close(self) -> Result<(), InboxError> {
        if let Some(imap) = self.imap {
            imap.close()?;
        }
        Ok(())
    }
}

impl ImapSession {
    fn open(account: &ImapAccount) -> Result<ImapSession, ImapError> {
        let runtime = super::imap::runtime()?;
        let (session, validity) = runtime.block_on(async {
            let stream = super::imap::connect(account).await?;
            let mut session = super::imap::login(stream, account).await?;
            let mailbox = session
                .select(&account.mailbox)
                .await
                .map_err(super::imap::protocol)?;
            Ok::<_, ImapError>((session, mailbox.uid_validity.unwrap_or(0)))
        })?;
        Ok(ImapSession {
            runtime,
            session,
            validity,
        })
    }

    fn list(&mut self, after: Option<u32>) -> Result<Vec<Listed>, ImapError> {
        let first = after.map_or(1, |uid| uid.saturating_add(1));
        let validity = self.validity;
        let session = &mut self.session;
        let mut listed = self.runtime.block_on(async {
            // `first:*` names the newest message even when `first` is past
            // it (RFC 3501, 6.4.8), so the UIDs are filtered below.
            let mut stream = session
                .uid_fetch(format!("{first}:*"), "(UID RFC822.SIZE)")
                .await
                .map_err(super::imap::protocol)?;
            let mut out = Vec::new();
            while let Some(item) = stream.next().await {
                let item = item.map_err(super::imap::protocol)?;
                if let (Some(uid), Some(size)) = (item.uid, item.size)
                    && uid >= first
                {
                    out.push(Listed {
                        place: Place::Imap { validity, uid },
                        size: u64::from(size),
                    });
                }
            }
            Ok::<_, ImapError>(out)
        })?;
        listed.sort_by(|a, b| a.place.cmp(&b.place));
        Ok(listed)
    }

    fn list_unseen(&mut self) -> Result<Vec<Listed>, ImapError> {
        let validity = self.validity;
        let session = &mut self.session;
        let mut listed = self.runtime.block_on(async {
            let mut uids: Vec<u32> = session
                .uid_search("UNSEEN")
                .await
                .map_err(super::imap::protocol)?
                .into_iter()
                .collect();
            uids.sort_unstable();
            let mut out = Vec::new();
            // Sizes in batches, so a long UID set stays a short command.
            for set in super::imap::uid_sets(&uids) {
                let mut stream = session
                    .uid_fetch(set, "(UID RFC822.SIZE)")
                    .await
                    .map_err(super::imap::protocol)?;
                while let Some(item) = stream.next().await {
                    let item = item.map_err(super::imap::protocol)?;
                    if let (Some(uid), Some(size)) = (item.uid, item.size) {
                        out.push(Listed {
                            place: Place::Imap { validity, uid },
                            size: u64::from(size),
                        });
                    }
                }
            }
            Ok::<_, ImapError>(out)
        })?;
        listed.sort_by(|a, b| a.place.cmp(&b.place));
        Ok(listed)
    }

    fn fetch(&mut self, uid: u32) -> Result<Vec<u8>, ImapError> {
        let session = &mut self.session;
        self.runtime.block_on(async {
            // BODY.PEEK leaves the \Seen flag alone.
            let mut stream = session
                .uid_fetch(uid.to_string(), "(UID BODY.PEEK[])")
                .await
                .map_err(super::imap::protocol)?;
            let mut raw = Vec::new();
            while let Some(item) = stream.next().await {
                let item = item.map_err(super::imap::protocol)?;
                if item.uid == Some(uid)
                    && let Some(body) = item.body()
                {
                    raw = body.to_vec();
                }
            }
            Ok(raw)
        })
    }

    fn fetch_head(&mut self, uid: u32, limit: u64) -> Result<Vec<u8>, ImapError> {
        let session = &mut self.session;
        self.runtime.block_on(async {
            let mut stream = session
                .uid_fetch(
                    uid.to_string(),
                    format!("(UID BODY.PEEK[HEADER]<0.{limit}>)"),
                )
                .await
                .map_err(super::imap::protocol)?;
            let mut head = Vec::new();
            while let Some(item) = stream.next().await {
                let item = item.map_err(super::imap::protocol)?;
                if item.uid == Some(uid)
                    && let Some(header) = item.header()
                {
                    head = header.to_vec();
                }
            }
            Ok(head)
        })
    }

    fn mark_seen(&mut self, uids: &[u32]) -> Result<(), ImapError> {
        let session = &mut self.session;
        self.runtime.block_on(async {
            // One request for a batch, so a long UID set stays a short
            // command.
            for set in super::imap::uid_sets(uids) {
                let mut updates = session
                    .uid_store(&set, "+FLAGS (\\Seen)")
                    .await
                    .map_err(super::imap::protocol)?;
                while let Some(update) = updates.next().await {
                    update.map_err(super::imap::protocol)?;
                }
            }
            Ok(())
        })
    }

    fn file_into(&mut self, uids: &[u32], folder: &str) -> Result<Filed, ImapError> {
        let set = uids
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(",");
        let session = &mut self.session;
        self.runtime.block_on(async {
            use super::imap::protocol;
            // Made if missing; a folder that exists refuses CREATE, and
            // the copy or move below says so if it is really missing.
            let _ = session.create(folder).await;
            // Read, as the player would have left them.
            {
                let mut updates = session
                    .uid_store(&set, "+FLAGS (\\Seen)")
                    .await
                    .map_err(protocol)?;
                while let Some(update) = updates.next().await {
                    update.map_err(protocol)?;
                }
            }
            let caps = session.capabilities().await.map_err(protocol)?;
            if caps.has_str("MOVE") {
                session.uid_mv(&set, folder).await.map_err(protocol)?;
                return Ok(Filed::Moved);
            }
            session.uid_copy(&set, folder).await.map_err(protocol)?;
            if !caps.has_str("UIDPLUS") {
                return Ok(Filed::CopiedOnly);
            }
            {
                let mut updates = session
                    .uid_store(&set, "+FLAGS (\\Deleted)")
                    .await
                    .map_err(protocol)?;
                while let Some(update) = updates.next().await {
                    update.map_err(protocol)?;
                }
            }
            let gone = session.uid_expunge(&set).await.map_err(protocol)?;
            let mut gone = std::pin::pin!(gone);
            while let Some(uid) = gone.next().await {
                uid.map_err(protocol)?;
            }
            Ok(Filed::Moved)
        })
    }

    fn close(mut self) -> Result<(), ImapError> {
        let session = &mut self.session;
        self.runtime
            .block_on(async { session.logout().await.map_err(super::imap::protocol) })
    }
}

/// The files of a Maildir's `new/` and `cur/`, in name order (delivery
/// order), with their sizes; hidden files are left out, and so are those
/// `pass_over` names by their path. It is asked before anything else is
/// asked of the file system about a file, so a mail passed over costs its
/// name only (see [`Session::list_new`] and [`Session::list_unseen`]).
fn list_maildir(dir: &Path, pass_over: impl Fn(&Path) -> bool) -> Result<Vec<Listed>, InboxError> {
    let io = |source| InboxError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut listed = Vec::new();
    for sub in ["cur", "new"] {
        for entry in std::fs::read_dir(dir.join(sub)).map_err(io)? {
            let entry = entry.map_err(io)?;
            let name = entry.file_name();
            if name.to_string_lossy().starts_with('.') {
                continue;
            }
            let path = entry.path();
            if pass_over(&path) {
                continue;
            }
            let meta = match entry.metadata() {
                Ok(meta) => meta,
                // Moved since the directory was read (a mail client
                // marked it seen): listed at its new place next time.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(io(e)),
            };
            if meta.is_file() {
                listed.push(Listed {
                    place: Place::File(path),
                    size: meta.len(),
                });
            }
        }
    }
    listed.sort_by_key(|l| l.place.key());
    Ok(listed)
}

/// The messages of an mbox file: each one's offset (at its `From ` line),
/// size and digest, in one pass a buffer at a time, so memory holds a
/// buffer, not the file.
fn list_mbox(file: &Path) -> Result<Vec<Listed>, InboxError> {
    let io = |source| InboxError::Io {
        path: file.to_path_buf(),
        source,
    };
    // Scanned a buffer at a time, keeping only the first bytes of each
    // line: read a line at a time, one line of a body without line breaks
    // (8-bit or binary, any size the MTA took) was held whole just to find
    // the next `From ` line. Each message is hashed as it is scanned: a
    // second pass over the file for the digests read every byte twice.
    let mut reader =
        std::io::BufReader::with_capacity(64 << 10, std::fs::File::open(file).map_err(io)?);
    let mut scan = MboxScan::new();
    loop {
        let buf = reader.fill_buf().map_err(io)?;
        if buf.is_empty() {
            break;
        }
        let n = buf.len();
        scan.buffer(buf);
        reader.consume(n);
    }
    Ok(scan.finish())
}

/// The state of [`list_mbox`]'s pass: the messages found so far, the hash
/// of the one being read, and a line's head cut off by the end of a buffer
/// (its bytes, held back until the next buffer shows whether the line is
/// a `From ` line, which starts a message, or belongs to the message
/// before).
struct MboxScan {
    listed: Vec<Listed>,
    hasher: Option<blake3::Hasher>,
    /// Where the file's bytes so far end.
    offset: u64,
    /// The next byte starts a line (the file's first does).
    at_line_start: bool,
    /// Where the held-back line starts, and its bytes so far (shorter
    /// than `From ` and a prefix of it), when a buffer ended in a line's
    /// head.
    held: Option<u64>,
    head: Vec<u8>,
}

/// What starts a message of an mbox, at a line's start.
const FROM_LINE: &[u8] = b"From ";

impl MboxScan {
    fn new() -> MboxScan {
        MboxScan {
            listed: Vec::new(),
            hasher: None,
            offset: 0,
            at_line_start: true,
            held: None,
            head: Vec::with_capacity(FROM_LINE.len()),
        }
    }

    /// The next bytes of the file. A line is looked at by its head and
    /// passed over to its line break (`memchr`); the message's bytes are
    /// hashed in runs, not a line at a time.
    fn buffer(&mut self, buf: &[u8]) {
        let mut i = 0;
        if let Some(line_start) = self.held {
            while i < buf.len() && self.undecided() {
                self.head.push(buf[i]);
                i += 1;
            }
            if self.undecided() {
                self.offset += buf.len() as u64;
                return;
            }
            self.held = None;
            let head = std::mem::take(&mut self.head);
            if head == FROM_LINE {
                self.start_message(line_start);
            }
            self.feed(&head);
            self.at_line_start = head.last() == Some(&b'\n');
            self.head = head;
        }
        // `buf[fed..]` is what is still to be hashed into the message read.
        let mut fed = i;
        while i < buf.len() {
            if self.at_line_start {
                self.at_line_start = false;
                let rest = &buf[i..];
                if rest.len() < FROM_LINE.len() && FROM_LINE.starts_with(rest) {
                    self.feed(&buf[fed..i]);
                    fed = buf.len();
                    self.held = Some(self.offset + i as u64);
                    self.head.clear();
                    self.head.extend_from_slice(rest);
                    break;
                }
                if rest.starts_with(FROM_LINE) {
                    self.feed(&buf[fed..i]);
                    fed = i;
                    self.start_message(self.offset + i as u64);
                }
            }
            match memchr::memchr(b'\n', &buf[i..]) {
                Some(k) => {
                    i += k + 1;
                    self.at_line_start = true;
                }
                None => i = buf.len(),
            }
        }
        self.feed(&buf[fed..]);
        self.offset += buf.len() as u64;
    }

    /// The held-back head could still become `From `.
    fn undecided(&self) -> bool {
        self.head.len() < FROM_LINE.len() && FROM_LINE.starts_with(&self.head)
    }

    /// A `From ` line at `offset`: the message before ends there.
    fn start_message(&mut self, offset: u64) {
        self.end_message(offset);
        self.hasher = Some(blake3::Hasher::new());
        self.listed.push(Listed {
            place: Place::Mbox {
                offset,
                size: 0,
                digest: [0; 16],
            },
            size: 0,
        });
    }

    /// Bytes of the message being read (none before the first `From `).
    fn feed(&mut self, bytes: &[u8]) {
        if let Some(hasher) = &mut self.hasher {
            hasher.update(bytes);
        }
    }

    /// The message being read, if any, ends at `end`: its size and digest.
    fn end_message(&mut self, end: u64) {
        let Some(hasher) = self.hasher.take() else {
            return;
        };
        if let Some(last) = self.listed.last_mut() {
            ends_at(last, end);
            if let Place::Mbox { digest, .. } = &mut last.place {
                digest.copy_from_slice(&hasher.finalize().as_bytes()[..16]);
            }
        }
    }

    /// The messages, once the whole file is read (a last line held back,
    /// shorter than `From `, is the last message's).
    fn finish(mut self) -> Vec<Listed> {
        if self.held.take().is_some() {
            let head = std::mem::take(&mut self.head);
            self.feed(&head);
        }
        self.end_message(self.offset);
        self.listed
    }
}

/// The mbox message `listed` ends at `end`: its size, in the listing and in
/// its place.
fn ends_at(listed: &mut Listed, end: u64) {
    if let Place::Mbox { offset, size, .. } = &mut listed.place {
        *size = end - *offset;
        listed.size = *size;
    }
}

/// A Maildir file as listed: never a link (the listing passes links over;
/// a file swapped for one since, to a file outside the mailbox or to
/// /dev/zero, is refused), and never more than its listed size (a file
/// that grew since is read again at the next look).
fn read_listed_file(path: &Path, size: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    if std::fs::symlink_metadata(path)?.file_type().is_symlink() {
        return Err(std::io::Error::other(
            "a link, not a mail file (swapped since the listing)",
        ));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0).min(1 << 24));
    std::fs::File::open(path)?
        .take(size)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// One message of an mbox, read from its offset: its `From ` line dropped
/// and `>From ` unescaped, as mail-parser's mbox reader does.
fn read_mbox_message(file: &Path, offset: u64, size: u64) -> std::io::Result<Vec<u8>> {
    let mut f = std::fs::File::open(file)?;
    f.seek(std::io::SeekFrom::Start(offset))?;
    let slice = std::io::BufReader::new(f.take(size));
    let mut messages = mail_parser::mailbox::mbox::MessageIterator::new(slice);
    match messages.next() {
        Some(Ok(message)) => Ok(message.contents().to_vec()),
        Some(Err(_)) => Err(std::io::Error::other("malformed mbox message")),
        None => Ok(Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An empty Maildir in a folder of its own, then `files` in it (a
    /// path under the Maildir, and its contents).
    fn maildir(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["cur", "new", "tmp"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        for (path, contents) in files {
            std::fs::write(dir.path().join(path), contents).unwrap();
        }
        dir
    }

    #[test]
    fn a_maildir_is_listed_without_reading_and_keys_ignore_flags() {
        let dir = maildir(&[
            ("new/2.host", "Subject: b\n\nbody\n"),
            ("cur/1.host:2,S", "Subject: a\n\nx\n"),
            ("new/.hidden", "x"),
        ]);
        let mut session = Mailbox::Maildir(dir.path().to_path_buf()).open().unwrap();
        let listed = session.list(None).unwrap();
        let keys: Vec<String> = listed.iter().map(|l| l.place.key()).collect();
        assert_eq!(keys, ["maildir:1.host", "maildir:2.host"]);
        assert_eq!(listed[1].size, 17);
        assert_eq!(session.fetch(&listed[1]).unwrap(), b"Subject: b\n\nbody\n");
        assert!(Mailbox::Maildir(dir.path().join("none")).open().is_err());
    }

    #[test]
    fn the_unread_mails_of_a_maildir_leave_the_read_ones_out_by_name() {
        let dir = maildir(&[
            ("cur/1.host:2,S", "read"),
            ("cur/2.host:2,FS", "read, flagged"),
            // Opened by a client, not marked read: still unread.
            ("cur/3.host:2,F", "flagged"),
            ("new/4.host", "new"),
        ]);
        // A folder with a read mail's name is no mail either way.
        std::fs::create_dir_all(dir.path().join("cur/5.host:2,S")).unwrap();
        let mut session = Mailbox::Maildir(dir.path().to_path_buf()).open().unwrap();
        let unseen = session.list_unseen().unwrap();
        let keys: Vec<String> = unseen.iter().map(|l| l.place.key()).collect();
        assert_eq!(keys, ["maildir:3.host", "maildir:4.host"]);
        assert_eq!(
            unseen.iter().map(|l| l.size).collect::<Vec<_>>(),
            [7, 3],
            "sizes as listed"
        );
        // The whole listing still has every mail; a desk's listing leaves
        // out the places it knows, whatever their flags.
        assert_eq!(session.list(None).unwrap().len(), 4);
        let known = ["maildir:1.host", "maildir:3.host"];
        let new = session
            .list_new(None, |place| known.contains(&place.key().as_str()))
            .unwrap();
        let keys: Vec<String> = new.iter().map(|l| l.place.key()).collect();
        assert_eq!(keys, ["maildir:2.host", "maildir:4.host"]);
    }

    #[test]
    fn an_mbox_is_listed_by_offsets_and_read_one_message_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("box");
        std::fs::write(
            &file,
            "From a@x Mon Nov 30 00:00:00 2026\nSubject: one\n\n>From the start\n\nFrom b@x Mon Nov 30 00:00:01 2026\nSubject: two\n\nsecond\n",
        )
        .unwrap();
        let mut session = Mailbox::Mbox(file).open().unwrap();
        let listed = session.list(None).unwrap();
        assert_eq!(listed.len(), 2);
        let second = String::from_utf8(session.fetch(&listed[1]).unwrap()).unwrap();
        assert!(
            second.contains("Subject: two") && !second.contains("one"),
            "{second}"
        );
        let first = String::from_utf8(session.fetch(&listed[0]).unwrap()).unwrap();
        assert!(first.contains("From the start"), "{first}");
        // The places known are left out here too (after the listing).
        let known = listed[0].place.clone();
        let new = session.list_new(None, |place| *place == known).unwrap();
        assert_eq!(new, listed[1..]);
    }

    /// The listing's one pass against the plainest reading of an mbox: a
    /// message starts at each line that starts with `From `, and is named
    /// by the BLAKE3 hash of its bytes to the next one; over mailboxes of
    /// every shape the pass must meet (`From ` lines and lines that only
    /// start like one, CRLF, a last line without its line break, bytes
    /// before the first message), cut into buffers at every place, so a
    /// `From ` split between two buffers is found and hashed whole.
    #[test]
    fn an_mbox_listing_in_one_pass_names_each_message_as_a_plain_reading_does() {
        fn plain(bytes: &[u8]) -> Vec<(u64, u64, [u8; 16])> {
            let mut starts: Vec<usize> = Vec::new();
            let mut line = 0;
            while line < bytes.len() {
                if bytes[line..].starts_with(b"From ") {
                    starts.push(line);
                }
                line = match bytes[line..].iter().position(|&b| b == b'\n') {
                    Some(k) => line + k + 1,
                    None => bytes.len(),
                };
            }
            let ends = starts.iter().skip(1).copied().chain([bytes.len()]);
            starts
                .iter()
                .zip(ends)
                .map(|(&start, end)| {
                    let mut digest = [0u8; 16];
                    digest.copy_from_slice(&blake3::hash(&bytes[start..end]).as_bytes()[..16]);
                    (start as u64, (end - start) as u64, digest)
                })
                .collect()
        }
        fn scanned(bytes: &[u8], cut: usize) -> Vec<(u64, u64, [u8; 16])> {
            let mut scan = MboxScan::new();
            for piece in bytes.chunks(cut) {
                scan.buffer(piece);
            }
            scan.finish()
                .into_iter()
                .map(|listed| match listed.place {
                    Place::Mbox {
                        offset,
                        size,
                        digest,
                    } => {
                        assert_eq!(size, listed.size);
                        (offset, size, digest)
                    }
                    other => panic!("{other:?}"),
                })
                .collect()
        }
        let boxes: [&[u8]; 8] = [
            b"",
            b"From ",
            b"From a@x\nFro",
            b"preamble\nFrom a@x Mon\nSubject: one\n\n>From here\nFromage\nFrom\n\nFrom b@x\r\nSubject: two\r\n\r\nbody",
            b"From a@x\n\nFrom b@x\n\nFrom c@x\n",
            b"From a@x\nx\nFrom\tb\n From c\nFrom  d\nFrom b@x\nlast line without a break",
            b"\n\n\nFr\nFrom a\n",
            b"From a\nFrom b\nFrom c\nFrom d",
        ];
        for bytes in boxes {
            let expected = plain(bytes);
            for cut in 1..=bytes.len().max(1) + 1 {
                assert_eq!(
                    scanned(bytes, cut),
                    expected,
                    "{:?} cut every {cut} bytes",
                    String::from_utf8_lossy(bytes)
                );
            }
        }
        assert_eq!(plain(boxes[3]).len(), 2);
        assert_eq!(plain(boxes[5]).len(), 3);
    }

    /// The peak resident memory of this process since the last reset, in
    /// kB (Linux: `VmHWM`, reset by writing 5 to `/proc/self/clear_refs`).
    #[cfg(target_os = "linux")]
    fn peak_kb() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    }

    /// Adversary: a hostile sender. A mail of 256 MiB whose body is one
    /// line (8-bit or binary MIME, no line breaks; an MTA with a generous
    /// size limit delivers it) lands in the player's mbox. Yam promises
    /// that memory stays bounded by the largest mail it accepts (16 MiB),
    /// whatever the mailbox holds, and that such a mail is never read;
    /// but the listing reads the mbox line by line into one buffer with
    /// no bound (`list_mbox`, `read_until`), so the whole line is held in
    /// memory just to find the next `From ` line.
    #[cfg(target_os = "linux")]
    #[test]
    fn listing_an_mbox_holding_one_huge_line_stays_within_the_memory_of_one_accepted_mail() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("box");
        let mut f = std::io::BufWriter::new(std::fs::File::create(&file).unwrap());
        f.write_all(b"From a@x Mon Nov 30 00:00:00 2026\nSubject: huge\n\n")
            .unwrap();
        let chunk = vec![b'A'; 1 << 20];
        for _ in 0..256 {
            f.write_all(&chunk).unwrap();
        }
        f.write_all(b"\n\nFrom b@x Mon Nov 30 00:00:01 2026\nSubject: small\n\nhi\n")
            .unwrap();
        f.into_inner().unwrap().sync_all().unwrap();
        drop(chunk);
        std::fs::write("/proc/self/clear_refs", "5").unwrap();
        let before = peak_kb();
        let mut session = Mailbox::Mbox(file).open().unwrap();
        let listed = session.list(None).unwrap();
        let grown_mib = peak_kb().saturating_sub(before) >> 10;
        assert_eq!(listed.len(), 2);
        assert!(listed[0].size > 256 << 20, "{listed:?}");
        assert!(
            grown_mib < 32,
            "listing a 256 MiB mbox mail grew the memory by {grown_mib} MiB"
        );
    }

    /// Adversary: whoever else can write into the Maildir (a local user of
    /// a shared spool, a misbehaving filter). `Session::fetch` promises
    /// "never more than `listed.size`", and the listing passes over
    /// symbolic links (it asks `lstat`); but the fetch reads the path with
    /// `std::fs::read`, which follows a link and has no bound. A file
    /// swapped after the listing for a link to a large file outside the
    /// mailbox (or to /dev/zero, which exhausts memory) is read whole.
    #[cfg(unix)]
    #[test]
    fn a_maildir_file_swapped_for_a_link_after_the_listing_is_not_read_past_its_listed_size() {
        let dir = maildir(&[("new/1.host", "Subject: a\n\nsmall\n")]);
        let mut session = Mailbox::Maildir(dir.path().to_path_buf()).open().unwrap();
        let listed = session.list(None).unwrap();
        assert_eq!(listed.len(), 1);
        let outside = tempfile::tempdir().unwrap();
        let big = outside.path().join("big");
        std::fs::write(&big, vec![b'x'; 20 << 20]).unwrap();
        let link = dir.path().join("tmp/swap");
        std::os::unix::fs::symlink(&big, &link).unwrap();
        std::fs::rename(&link, dir.path().join("new/1.host")).unwrap();
        match session.fetch(&listed[0]) {
            Err(_) => {}
            Ok(raw) => assert!(
                raw.len() as u64 <= listed[0].size,
                "fetched {} bytes of a mail listed at {} bytes (a file outside the mailbox)",
                raw.len(),
                listed[0].size
            ),
        }
    }
}
