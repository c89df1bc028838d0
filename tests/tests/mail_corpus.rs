//! A corpus of awkward mails: what real clients do to a turn, and what Yam
//! finds in each. Every mail is built from one real turn block; the
//! transformations are the clients' (quoting, quoted-printable with
//! format=flowed, HTML-only, signatures and disclaimers, forwarding,
//! truncation).

use yam_cli::mail::armor::{self, ArmorError, Block};
use yam_cli::mail::extract::{MailError, Turn, read_mail};
use yam_tests::shapes::{self, headers};

const PAYLOAD: &[u8] =
    b"[Game \"Khan\"]\n[GameId \"g1\"]\n\n3. Wh3-f4 {[%event AAAA== BBBB==]} *\n";
const OLD_PAYLOAD: &[u8] = b"[Game \"Khan\"]\n[GameId \"g1\"]\n\n2... Md7-e7 *\n";

fn block() -> String {
    armor::armor("g1", 5, PAYLOAD)
}

fn old_block() -> String {
    armor::armor("g1", 4, OLD_PAYLOAD)
}

fn expected() -> Turn {
    Turn::Block(Block {
        game: "g1".into(),
        ply: 5,
        payload: PAYLOAD.to_vec(),
    })
}

#[test]
fn thunderbird_reply_in_quoted_printable_with_format_flowed() {
    // Flowed text: soft line breaks are a trailing space; the reply quotes
    // the previous turn below the new one.
    let raw = shapes::thunderbird_reply(&block(), &old_block());
    let mail = read_mail(raw.as_bytes()).unwrap();
    assert_eq!(mail.turns, vec![expected()]);
    assert_eq!(mail.quoted_copies, 1);
    assert_eq!(mail.replies_to, ["yam.g1.4@example.net"]);
}

#[test]
fn gmail_top_posted_reply_quoting_the_previous_turn() {
    let raw = shapes::gmail_reply(&block(), &old_block());
    let mail = read_mail(raw.as_bytes()).unwrap();
    assert_eq!(mail.turns, vec![expected()]);
    assert_eq!(mail.quoted_copies, 1);
}

#[test]
fn html_only_mail() {
    let raw = shapes::html_only(&block(), &old_block());
    let mail = read_mail(raw.as_bytes()).unwrap();
    assert_eq!(mail.turns, vec![expected()]);
}

#[test]
fn signature_and_disclaimer() {
    let raw = shapes::signed_off(&block());
    assert_eq!(read_mail(raw.as_bytes()).unwrap().turns, vec![expected()]);
}

#[test]
fn forwarded_as_an_attached_message() {
    let raw = shapes::forwarded_attached(&block());
    assert_eq!(read_mail(raw.as_bytes()).unwrap().turns, vec![expected()]);
}

#[test]
fn forwarded_inline() {
    let raw = shapes::forwarded_inline(&block());
    assert_eq!(read_mail(raw.as_bytes()).unwrap().turns, vec![expected()]);
}

#[test]
fn truncated_attachment_leaves_the_block_to_be_used() {
    use base64::Engine;
    let record = PAYLOAD.repeat(40);
    let encoded = base64::engine::general_purpose::STANDARD.encode(&record);
    let cut = &encoded[..encoded.len() / 2];
    let raw = format!(
        "{}\r\n--b1\r\nContent-Type: text/plain\r\n\r\n{}\r\n--b1\r\nContent-Type: application/x-yam\r\n\
         Content-Disposition: attachment; filename=\"g1.yam\"\r\nContent-Transfer-Encoding: base64\r\n\r\n{cut}\r\n",
        headers("multipart/mixed; boundary=\"b1\"", ""),
        block().replace('\n', "\r\n")
    );
    let mail = read_mail(raw.as_bytes()).unwrap();
    // Both are found; the attachment's bytes are not the record that was
    // sent, which the game-level reader finds when it parses them.
    assert_eq!(mail.turns.len(), 2);
    match &mail.turns[0] {
        Turn::Attachment { bytes, .. } => assert!(bytes.len() < record.len()),
        other => panic!("expected the attachment first, got {other:?}"),
    }
    assert_eq!(mail.turns[1], expected());
}

#[test]
fn a_damaged_block_is_refused_with_its_reason() {
    // One character of the payload changed in transit.
    let text = block();
    let payload_at = text.find("\n\n").unwrap() + 2;
    let mut damaged = text.clone().into_bytes();
    damaged[payload_at] = if damaged[payload_at] == b'Q' {
        b'R'
    } else {
        b'Q'
    };
    let damaged = String::from_utf8(damaged).unwrap();
    let raw = format!("{}\r\n{damaged}", headers("text/plain", ""));
    let mail = read_mail(raw.as_bytes()).unwrap();
    assert!(mail.turns.is_empty());
    assert_eq!(mail.damaged, vec![ArmorError::Checksum]);

    let cut = &block()[..block().len() / 2];
    let raw = format!("{}\r\n{cut}", headers("text/plain", ""));
    assert_eq!(
        read_mail(raw.as_bytes()).unwrap().damaged,
        vec![ArmorError::Truncated]
    );
}

#[test]
fn auto_replies_and_list_mail_are_recognised() {
    let raw = format!(
        "{}\r\nI am on holiday.\r\n",
        headers(
            "text/plain",
            "Auto-Submitted: auto-replied\r\nPrecedence: bulk\r\n"
        )
    );
    let mail = read_mail(raw.as_bytes()).unwrap();
    assert_eq!(mail.auto_submitted.as_deref(), Some("auto-replied"));
    assert!(mail.bulk);
}

#[test]
fn garbage_is_not_a_mail_and_huge_mail_is_refused_unread() {
    assert_eq!(read_mail(b"").unwrap_err(), MailError::NotAMail);
    assert!(read_mail(&vec![b'x'; 17 << 20]).is_err());
    // Garbage MIME never panics.
    for junk in [
        &b"\xff\xfe\x00garbage"[..],
        b"Content-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\n--x",
    ] {
        let _ = read_mail(junk);
    }
}

/// Adversary: real life, an HTML-only composer (a webmail's or a phone's)
/// that writes each line as a `<div>`, as `docs/robot.md` already knows
/// them (`robot_local::an_html_only_mail_written_in_divs_is_read_line_by_line`).
/// A turn sent by hand (`yam turn GAME`, pasted into the composer) arrives
/// so. The mail parser's text rendering breaks lines only at `<br>` and
/// `</p>`, so the block's lines run into one ("Game: g1Ply: 5Checksum:
/// ...") and the turn is refused as "no valid Ply header". docs/mail.md,
/// "Reading a mail": "HTML-only mail | read through its text rendering".
/// Found by an attacker helper (real mail clients and the hostile
/// mailbox).
#[test]
fn html_only_mail_written_in_divs() {
    let divs: String = block()
        .lines()
        .map(|l| {
            if l.is_empty() {
                "<div><br></div>".to_owned()
            } else {
                format!("<div>{l}</div>")
            }
        })
        .collect();
    let raw = format!(
        "{}\r\n<html><body><div dir=\"ltr\"><div>My move:</div><div><br></div>{divs}</div></body></html>\r\n",
        headers("text/html; charset=UTF-8", "")
    );
    let mail = read_mail(raw.as_bytes()).unwrap();
    assert_eq!(mail.damaged, vec![]);
    assert_eq!(mail.turns, vec![expected()]);
}

/// Adversary: real life, a player whose client signs her mail with inline
/// OpenPGP (a clearsigned text: Mailvelope, Thunderbird's or Evolution's
/// inline signing, `gpg --clearsign` on a turn sent by hand). RFC 4880
/// (7.1) dash-escapes every line of the text that begins with `-`: the
/// block's begin and end lines arrive as `- -----BEGIN YAM TURN-----` and
/// `- -----END YAM TURN-----`. The begin line is still found, but the `-`
/// that escapes the end line is read as a word of the payload, and the
/// honest turn is refused as "damaged (not base64)", though not a byte of
/// it changed. docs/mail.md: "nothing a mail client does to a message
/// (quoting, re-wrapping, encoding, HTML, forwarding) can change a turn
/// without Yam noticing"; "a signature or a disclaimer after the block:
/// everything after the end line is ignored". Found by an attacker helper
/// (real mail clients and the hostile mailbox).
#[test]
fn inline_pgp_clearsigned_mail() {
    let dash_escaped: String = block()
        .lines()
        .map(|l| {
            if l.starts_with('-') {
                format!("- {l}\r\n")
            } else {
                format!("{l}\r\n")
            }
        })
        .collect();
    let raw = format!(
        "{}\r\n-----BEGIN PGP SIGNED MESSAGE-----\r\nHash: SHA256\r\n\r\nMy move.\r\n\r\n{dash_escaped}\
         -----BEGIN PGP SIGNATURE-----\r\n\r\niHUEARYKAB0WIQQ=\r\n=abcd\r\n-----END PGP SIGNATURE-----\r\n",
        headers("text/plain; charset=UTF-8", "")
    );
    let mail = read_mail(raw.as_bytes()).unwrap();
    assert_eq!(mail.damaged, vec![]);
    assert_eq!(mail.turns, vec![expected()]);
}
