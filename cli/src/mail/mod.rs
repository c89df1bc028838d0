//! Mail: turns armored into mails and found again in whatever comes back.
//!
//! `docs/mail.md` describes the mail format and what is checked, and why.

pub mod address;
pub mod armor;
pub mod cards;
pub mod compose;
pub mod extract;
pub mod flowed;
pub mod html;
pub mod imap;
pub mod inbox;
pub mod maildir;
pub mod notice;
pub mod shape;
pub mod thread;
pub mod transport;
