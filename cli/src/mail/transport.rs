//! Sending mail: SMTP (TLS, STARTTLS, or plain on loopback), a sendmail
//! program, or files in a directory for offline play.

use std::path::PathBuf;

use lettre::transport::smtp::authentication::Credentials;
use lettre::{Message, SendmailTransport, SmtpTransport, Transport};

/// How the SMTP connection is secured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Security {
    /// TLS from the first byte (port 465).
    Tls,
    /// STARTTLS, required (port 587).
    StartTls,
    /// No TLS: only for a server on this machine.
    None,
}

/// Where outgoing mail goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outgoing {
    /// An SMTP server.
    Smtp {
        /// Host name.
        host: String,
        /// Port.
        port: u16,
        /// Security.
        security: Security,
        /// Login and password, when the server wants AUTH.
        auth: Option<(String, String)>,
    },
    /// A sendmail-compatible program.
    Sendmail {
        /// Its path.
        program: PathBuf,
    },
    /// `.eml` files in a directory (offline play, tests).
    Directory {
        /// The directory.
        dir: PathBuf,
    },
}

/// Why a mail could not be sent.
#[derive(Debug, thiserror::Error)]
#[error("cannot send: {0}")]
pub struct SendError(String);

/// The SMTP transport for an account.
fn smtp(
    host: &str,
    port: u16,
    security: Security,
    auth: &Option<(String, String)>,
) -> Result<SmtpTransport, SendError> {
    let err = |e: lettre::transport::smtp::Error| SendError(e.to_string());
    let mut builder = match security {
        Security::Tls => SmtpTransport::relay(host).map_err(err)?,
        Security::StartTls => SmtpTransport::starttls_relay(host).map_err(err)?,
        Security::None => SmtpTransport::builder_dangerous(host),
    }
    .port(port);
    if let Some((user, password)) = auth {
        builder = builder.credentials(Credentials::new(user.clone(), password.clone()));
    }
    Ok(builder.build())
}

/// Send one message.
pub fn send(outgoing: &Outgoing, message: &Message) -> Result<(), SendError> {
    let err = |e: &dyn std::fmt::Display| SendError(e.to_string());
    match outgoing {
        Outgoing::Smtp {
            host,
            port,
            security,
            auth,
        } => smtp(host, *port, *security, auth)?
            .send(message)
            .map(|_| ())
            .map_err(|e| err(&e)),
        Outgoing::Sendmail { program } => SendmailTransport::new_with_command(program)
            .send(message)
            .map_err(|e| err(&e)),
        Outgoing::Directory { dir } => write_into(dir, message),
    }
}

/// Try the way out without sending anything: connect and authenticate to
/// an SMTP server, find the sendmail program, or write into the directory.
pub fn check(outgoing: &Outgoing) -> Result<String, SendError> {
    match outgoing {
        Outgoing::Smtp {
            host,
            port,
            security,
            auth,
        } => match smtp(host, *port, *security, auth)?.test_connection() {
            Ok(true) => Ok(format!("SMTP server {host}:{port} answers")),
            Ok(false) => Err(SendError(format!(
                "SMTP server {host}:{port} did not answer"
            ))),
            Err(e) => Err(SendError(e.to_string())),
        },
        Outgoing::Sendmail { program } => {
            let meta = std::fs::metadata(program)
                .map_err(|e| SendError(format!("{}: {e}", program.display())))?;
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                if meta.permissions().mode() & 0o111 == 0 {
                    return Err(SendError(format!(
                        "{} is not executable",
                        program.display()
                    )));
                }
            }
            let _ = meta;
            Ok(format!("sendmail program {} found", program.display()))
        }
        Outgoing::Directory { dir } => {
            let probe = dir.join(".yam-write-test");
            std::fs::write(&probe, b"")
                .map_err(|e| SendError(format!("{}: {e}", dir.display())))?;
            let _ = std::fs::remove_file(&probe);
            Ok(format!("directory {} is writable", dir.display()))
        }
    }
}

/// A mail written into the directory `dir` as a Maildir delivery is: whole
/// under a hidden temporary name, then renamed to its own (`NAME.eml`).
/// The quickstart points a desk's directory at the other desk's
/// `Maildir/new`, whose reader passes hidden files over; written in place
/// (lettre's file transport creates the file empty, then fills it), a mail
/// a reader looked at in between was read empty, remembered by its name,
/// and its turn, once whole, passed over for good.
fn write_into(dir: &std::path::Path, message: &Message) -> Result<(), SendError> {
    let random = crate::game::secrets::random_32().map_err(|e| SendError(e.to_string()))?;
    let name = format!(
        "{}.{}.eml",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        hex::encode(&random[..8])
    );
    let path = dir.join(name);
    crate::store::atomic::write(&path, &message.formatted(), false)
        .map_err(|e| SendError(format!("{}: {e}", path.display())))
}
