//! Sending mail: SMTP (TLS, STARTTLS, or plain on loopback), a sendmail
//! program, or files in a directory for offline play.

use std::path::PathBuf;

use lettre::transport::smtp::authentication::Credentials;
use lettre::{FileTransport, SendmailTransport, SmtpTransport, Transport};

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
pub fn send(outgoing: &Outgoing, message: &lettre::Message) -> Result<(), SendError> {
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
        Outgoing::Directory { dir } => FileTransport::new(dir)
            .send(message)
            .map(|_| ())
            .map_err(|e| err(&e)),
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
