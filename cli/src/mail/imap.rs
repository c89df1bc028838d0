//! Reading turns from an IMAP mailbox (async-imap on a small tokio runtime).
//!
//! Yam fetches unseen mail, hands each raw message to the reader, and marks
//! as seen only what it has dealt with: a mail it refused stays unseen and in
//! place, so a person can look at it.

use std::sync::Arc;
use std::time::Duration;

use async_imap::extensions::idle::IdleResponse;
use futures_util::StreamExt;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

/// How to reach an IMAP server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImapAccount {
    /// Host name.
    pub host: String,
    /// Port (993 for TLS, 143 for plain).
    pub port: u16,
    /// Whether to speak TLS from the first byte (IMAPS).
    pub tls: bool,
    /// Login.
    pub user: String,
    /// Password.
    pub password: String,
    /// The mailbox to read.
    pub mailbox: String,
}

/// One fetched message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    /// Its IMAP UID in the mailbox.
    pub uid: u32,
    /// Its raw bytes.
    pub raw: Vec<u8>,
}

/// Why talking to the server failed.
#[derive(Debug, thiserror::Error)]
pub enum ImapError {
    /// The connection failed.
    #[error("cannot connect to {0}: {1}")]
    Connect(String, std::io::Error),
    /// The server refused or broke the conversation.
    #[error("IMAP: {0}")]
    Protocol(String),
}

pub(super) fn protocol(e: impl std::fmt::Display) -> ImapError {
    ImapError::Protocol(plain_words(&e.to_string()))
}

/// A server's refusal in plain words: async-imap prints what the server
/// said as a Rust value (`no response: Some("[AUTHENTICATIONFAILED] ...")`),
/// which means nothing to a player.
fn plain_words(text: &str) -> String {
    let text = text
        .replacen("no response: ", "the server refused: ", 1)
        .replacen(
            "bad response: ",
            "the server did not understand the request: ",
            1,
        );
    // A refusal the crate reports as a Rust value of its own
    // (`outcome: Outcome { code: None, information: ... }`): its words only.
    if let (Some(start), Some(end)) = (text.find("Outcome {"), text.rfind('}'))
        && let Some(info) = text[start..end].find("information: ")
    {
        let words = text[start + info + "information: ".len()..end].trim();
        let before = text[..start]
            .trim_end()
            .trim_end_matches("outcome:")
            .trim_end();
        return format!("{before} {words}").trim().to_owned();
    }
    match (text.find("Some(\""), text.rfind("\")")) {
        (Some(start), Some(end)) if end > start => {
            let inner = text[start + 6..end].replace("\\\"", "\"");
            format!("{}{inner}{}", &text[..start], &text[end + 2..])
        }
        _ => text.replace(": None", ": no reason given"),
    }
}

pub(super) fn runtime() -> Result<tokio::runtime::Runtime, ImapError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(protocol)
}

/// A connection to the server, plain or TLS: one type, so the session code
/// is written once.
#[derive(Debug)]
pub(super) enum Stream {
    Plain(TcpStream),
    Tls(Box<tokio_rustls::client::TlsStream<TcpStream>>),
}

impl AsyncRead for Stream {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => std::pin::Pin::new(s).poll_read(cx, buf),
            Stream::Tls(s) => std::pin::Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Stream {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(s) => std::pin::Pin::new(s).poll_write(cx, buf),
            Stream::Tls(s) => std::pin::Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }
    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => std::pin::Pin::new(s).poll_flush(cx),
            Stream::Tls(s) => std::pin::Pin::new(s.as_mut()).poll_flush(cx),
        }
    }
    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => std::pin::Pin::new(s).poll_shutdown(cx),
            Stream::Tls(s) => std::pin::Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}

pub(super) async fn connect(account: &ImapAccount) -> Result<Stream, ImapError> {
    let tcp = TcpStream::connect((account.host.as_str(), account.port))
        .await
        .map_err(|e| ImapError::Connect(format!("{}:{}", account.host, account.port), e))?;
    Ok(if account.tls {
        Stream::Tls(Box::new(tls_connect(&account.host, tcp).await?))
    } else {
        Stream::Plain(tcp)
    })
}

/// Fetch the unseen messages of the account's mailbox, oldest first,
/// without marking them seen.
pub fn fetch_unseen(account: &ImapAccount) -> Result<Vec<Fetched>, ImapError> {
    runtime()?.block_on(async { fetch_with(connect(account).await?, account).await })
}

/// Log in and open the mailbox, to check an account; returns how many
/// messages the mailbox holds.
pub fn check(account: &ImapAccount) -> Result<u32, ImapError> {
    runtime()?.block_on(async {
        let mut session = session(connect(account).await?, account).await?;
        let exists = session
            .select(&account.mailbox)
            .await
            .map_err(protocol)?
            .exists;
        session.logout().await.map_err(protocol)?;
        Ok(exists)
    })
}

/// How a wait for mail ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wake {
    /// Unseen mail is waiting, or the server announced a change.
    Mail,
    /// Nothing happened within the time given.
    Timeout,
    /// The server does not offer IDLE: the caller polls instead.
    Unsupported,
}

/// Waits in IMAP IDLE (RFC 2177) until the server announces a change to
/// the mailbox or `limit` passes. Returns at once when unseen mail is
/// already waiting, since a mail that arrived between the last fetch and
/// the IDLE would otherwise wait for the next change.
pub fn wait_for_mail(account: &ImapAccount, limit: Duration) -> Result<Wake, ImapError> {
    runtime()?.block_on(async {
        let mut session = session(connect(account).await?, account).await?;
        if !session
            .capabilities()
            .await
            .map_err(protocol)?
            .has_str("IDLE")
        {
            session.logout().await.map_err(protocol)?;
            return Ok(Wake::Unsupported);
        }
        if !session
            .uid_search("UNSEEN")
            .await
            .map_err(protocol)?
            .is_empty()
        {
            session.logout().await.map_err(protocol)?;
            return Ok(Wake::Mail);
        }
        let mut idle = session.idle();
        idle.init().await.map_err(protocol)?;
        let (wait, _interrupt) = idle.wait_with_timeout(limit);
        // The crate's timeout restarts at every keep-alive the server
        // sends; the whole wait must still end at `limit`.
        let woke = match tokio::time::timeout(limit, wait).await {
            Ok(Ok(IdleResponse::NewData(_))) => Wake::Mail,
            Ok(Ok(_)) | Err(_) => Wake::Timeout,
            Ok(Err(e)) => return Err(protocol(e)),
        };
        let mut session = idle.done().await.map_err(protocol)?;
        session.logout().await.map_err(protocol)?;
        Ok(woke)
    })
}

/// Waits in IMAP IDLE (RFC 2177) until the server announces a change to
/// the mailbox or `limit` passes, for a reader that remembers what it has
/// read by UID (not by the `\Seen` flag, which a mail client sets too):
/// returns at once when a mail with a UID above `after` is there.
pub fn wait_for_new(
    account: &ImapAccount,
    after: Option<u32>,
    limit: Duration,
) -> Result<Wake, ImapError> {
    runtime()?.block_on(async {
        let mut session = session(connect(account).await?, account).await?;
        if !session
            .capabilities()
            .await
            .map_err(protocol)?
            .has_str("IDLE")
        {
            session.logout().await.map_err(protocol)?;
            return Ok(Wake::Unsupported);
        }
        let first = after.map_or(1, |uid| uid.saturating_add(1));
        // `first:*` names the newest message even when `first` is past it
        // (RFC 3501, 6.4.8): only UIDs from `first` on count.
        let waiting = session
            .uid_search(format!("UID {first}:*"))
            .await
            .map_err(protocol)?
            .into_iter()
            .any(|uid| uid >= first);
        if waiting {
            session.logout().await.map_err(protocol)?;
            return Ok(Wake::Mail);
        }
        let mut idle = session.idle();
        idle.init().await.map_err(protocol)?;
        let (wait, _interrupt) = idle.wait_with_timeout(limit);
        let woke = match tokio::time::timeout(limit, wait).await {
            Ok(Ok(IdleResponse::NewData(_))) => Wake::Mail,
            Ok(Ok(_)) | Err(_) => Wake::Timeout,
            Ok(Err(e)) => return Err(protocol(e)),
        };
        let mut session = idle.done().await.map_err(protocol)?;
        session.logout().await.map_err(protocol)?;
        Ok(woke)
    })
}

/// Mark messages seen (dealt with), by UID.
pub fn mark_seen(account: &ImapAccount, uids: &[u32]) -> Result<(), ImapError> {
    if uids.is_empty() {
        return Ok(());
    }
    runtime()?.block_on(async { store_seen(connect(account).await?, account, uids).await })
}

async fn tls_connect(
    host: &str,
    tcp: TcpStream,
) -> Result<tokio_rustls::client::TlsStream<TcpStream>, ImapError> {
    let roots = tokio_rustls::rustls::RootCertStore::from_iter(
        webpki_roots::TLS_SERVER_ROOTS.iter().cloned(),
    );
    let config = tokio_rustls::rustls::ClientConfig::builder_with_provider(Arc::new(
        tokio_rustls::rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(protocol)?
    .with_root_certificates(roots)
    .with_no_client_auth();
    let name =
        tokio_rustls::rustls::pki_types::ServerName::try_from(host.to_owned()).map_err(protocol)?;
    tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(name, tcp)
        .await
        .map_err(|e| ImapError::Connect(host.to_owned(), e))
}

async fn session<S>(stream: S, account: &ImapAccount) -> Result<async_imap::Session<S>, ImapError>
where
    S: AsyncRead + AsyncWrite + Unpin + std::fmt::Debug + Send,
{
    let mut session = login(stream, account).await?;
    session.select(&account.mailbox).await.map_err(protocol)?;
    Ok(session)
}

/// Logs in, without selecting a mailbox.
pub(super) async fn login<S>(
    stream: S,
    account: &ImapAccount,
) -> Result<async_imap::Session<S>, ImapError>
where
    S: AsyncRead + AsyncWrite + Unpin + std::fmt::Debug + Send,
{
    let mut client = async_imap::Client::new(stream);
    // The server speaks first.
    client.read_response().await.map_err(protocol)?;
    client
        .login(&account.user, &account.password)
        .await
        .map_err(|(e, _)| protocol(e))
}

/// The UID sets of a command over `uids`, at most 500 UIDs each, so that a
/// long list of messages stays a short command (servers limit a command's
/// length).
pub(super) fn uid_sets(uids: &[u32]) -> impl Iterator<Item = String> + '_ {
    uids.chunks(500).map(|batch| {
        batch
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(",")
    })
}

async fn fetch_with<S>(stream: S, account: &ImapAccount) -> Result<Vec<Fetched>, ImapError>
where
    S: AsyncRead + AsyncWrite + Unpin + std::fmt::Debug + Send,
{
    let mut session = session(stream, account).await?;
    let mut uids: Vec<u32> = session
        .uid_search("UNSEEN")
        .await
        .map_err(protocol)?
        .into_iter()
        .collect();
    uids.sort_unstable();
    let mut fetched = Vec::with_capacity(uids.len());
    for set in uid_sets(&uids) {
        // BODY.PEEK leaves the \Seen flag alone: only what Yam deals with is marked.
        let mut stream = session
            .uid_fetch(&set, "(UID BODY.PEEK[])")
            .await
            .map_err(protocol)?;
        while let Some(item) = stream.next().await {
            let item = item.map_err(protocol)?;
            if let (Some(uid), Some(body)) = (item.uid, item.body()) {
                fetched.push(Fetched {
                    uid,
                    raw: body.to_vec(),
                });
            }
        }
    }
    session.logout().await.map_err(protocol)?;
    fetched.sort_by_key(|f| f.uid);
    Ok(fetched)
}

async fn store_seen<S>(stream: S, account: &ImapAccount, uids: &[u32]) -> Result<(), ImapError>
where
    S: AsyncRead + AsyncWrite + Unpin + std::fmt::Debug + Send,
{
    let mut session = session(stream, account).await?;
    for set in uid_sets(uids) {
        let mut updates = session
            .uid_store(&set, "+FLAGS (\\Seen)")
            .await
            .map_err(protocol)?;
        while let Some(update) = updates.next().await {
            update.map_err(protocol)?;
        }
    }
    session.logout().await.map_err(protocol)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{plain_words, uid_sets};

    #[test]
    fn a_long_list_of_uids_goes_in_sets_of_500() {
        let uids: Vec<u32> = (1..=1001).collect();
        let sets: Vec<String> = uid_sets(&uids).collect();
        assert_eq!(sets.len(), 3);
        assert!(sets[0].starts_with("1,2,3,") && sets[0].ends_with(",500"));
        assert_eq!(sets[2], "1001");
        assert_eq!(uid_sets(&[]).count(), 0);
    }

    #[test]
    fn a_refusal_reads_in_plain_words() {
        assert_eq!(
            plain_words("no response: Some(\"[AUTHENTICATIONFAILED] Authentication failed.\")"),
            "the server refused: [AUTHENTICATIONFAILED] Authentication failed."
        );
        assert_eq!(
            plain_words(
                "no response: outcome: Outcome { code: None, information: Internal mailbox synchronization failure, showing only old mails. }"
            ),
            "the server refused: Internal mailbox synchronization failure, showing only old mails."
        );
        assert_eq!(
            plain_words("no response: None"),
            "the server refused: no reason given"
        );
        assert_eq!(plain_words("connection lost"), "connection lost");
    }
}
