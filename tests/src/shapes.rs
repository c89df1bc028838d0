//! What mail clients do to a turn mail: quoting, quoted-printable with
//! format=flowed, HTML-only, signatures and disclaimers, forwarding. Each
//! function builds a mail from Ann <ann@example.org> to bo@example.net
//! around a turn block (and the quoted copy of an earlier one), as the
//! clients named would.

pub fn headers(content_type: &str, extra: &str) -> String {
    format!(
        "From: Ann <ann@example.org>\r\nTo: bo@example.net\r\nSubject: Re: [Yam] Khan g1 #4: Ann vs Bo\r\n\
         Message-ID: <reply-1@example.org>\r\nIn-Reply-To: <yam.g1.4@example.net>\r\nMIME-Version: 1.0\r\n\
         {extra}Content-Type: {content_type}\r\n"
    )
}

pub fn quote(text: &str) -> String {
    text.lines().map(|l| format!("> {l}\r\n")).collect()
}

/// Quoted-printable as clients write it: soft breaks at 76, `=` as `=3D`.
pub fn quoted_printable(text: &str) -> String {
    let mut out = String::new();
    for line in text.split('\n') {
        let mut encoded = String::new();
        for c in line.chars() {
            match c {
                '=' => encoded.push_str("=3D"),
                c if c.is_ascii() => encoded.push(c),
                c => {
                    let mut buf = [0u8; 4];
                    for b in c.encode_utf8(&mut buf).bytes() {
                        encoded.push_str(&format!("={b:02X}"));
                    }
                }
            }
        }
        while encoded.len() > 75 {
            let mut cut = 75;
            while encoded.as_bytes()[cut - 1] == b'='
                || encoded.as_bytes().get(cut - 2) == Some(&b'=')
            {
                cut -= 1;
            }
            out.push_str(&encoded[..cut]);
            out.push_str("=\r\n");
            encoded = encoded[cut..].to_owned();
        }
        out.push_str(&encoded);
        out.push_str("\r\n");
    }
    out
}

/// Thunderbird: a reply in quoted-printable with format=flowed, quoting
/// the previous turn below the new one.
pub fn thunderbird_reply(block: &str, old_block: &str) -> String {
    let flowed: String = block.lines().map(|l| format!("{l} \n")).collect();
    let body = format!(
        "Here is my move. \n\n{flowed}\nOn Sunday Bo wrote: \n{}",
        quote(old_block)
    );
    format!(
        "{}Content-Transfer-Encoding: quoted-printable\r\n\r\n{}",
        headers(
            "text/plain; charset=UTF-8; format=flowed; delsp=yes",
            "User-Agent: Mozilla Thunderbird\r\n"
        ),
        quoted_printable(&body)
    )
}

/// Gmail: top-posted, the previous turn quoted twice below.
pub fn gmail_reply(block: &str, old_block: &str) -> String {
    let body = format!(
        "{}\r\n\r\nOn Sun, Nov 29, 2026 at 10:02 Bo <bo@example.net> wrote:\r\n{}",
        block.replace('\n', "\r\n"),
        quote(&quote(old_block))
    );
    format!("{}\r\n{body}", headers("text/plain; charset=UTF-8", ""))
}

/// An HTML-only mail, the previous turn in a blockquote.
pub fn html_only(block: &str, old_block: &str) -> String {
    let html_block = block.replace('\n', "<br>\n");
    format!(
        "{}\r\n<html><body><div dir=\"ltr\">My move:<br><br>{html_block}</div>\
         <blockquote>{}</blockquote></body></html>\r\n",
        headers("text/html; charset=UTF-8", ""),
        quote(old_block).replace('\n', "<br>\n")
    )
}

/// A signature and a disclaimer after the block.
pub fn signed_off(block: &str) -> String {
    let body = format!(
        "Move attached.\r\n\r\n{}\r\n-- \r\nAnn Example\r\nhttps://example.org\r\n\r\n\
         CONFIDENTIALITY NOTICE: This e-mail and any attachments are confidential.\r\n",
        block.replace('\n', "\r\n")
    );
    format!("{}\r\n{body}", headers("text/plain; charset=UTF-8", ""))
}

/// A plain turn mail around `block`.
pub fn original_mail(block: &str) -> String {
    format!(
        "From: Ann <ann@example.org>\r\nTo: bo@example.net\r\nSubject: [Yam] Khan g1 #5: Ann vs Bo\r\n\
         Message-ID: <yam.g1.5@example.org>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=UTF-8\r\n\r\n\
         Your move.\r\n\r\n{}",
        block.replace('\n', "\r\n")
    )
}

/// Forwarded as an attached message (message/rfc822).
pub fn forwarded_attached(block: &str) -> String {
    format!(
        "{}\r\n--b1\r\nContent-Type: text/plain\r\n\r\nForwarding Ann's turn.\r\n\
         --b1\r\nContent-Type: message/rfc822\r\nContent-Disposition: attachment\r\n\r\n{}\r\n--b1--\r\n",
        headers("multipart/mixed; boundary=\"b1\"", ""),
        original_mail(block)
    )
}

/// Forwarded inline, below a "Forwarded message" line.
pub fn forwarded_inline(block: &str) -> String {
    format!(
        "{}\r\n---------- Forwarded message ---------\r\nFrom: Ann <ann@example.org>\r\n\
         Subject: [Yam] Khan g1 #5\r\n\r\n{}",
        headers("text/plain; charset=UTF-8", ""),
        block.replace('\n', "\r\n")
    )
}

/// Outlook: the reply above, the original below it unquoted (no `>`), so
/// the earlier turn's block stands whole in the text, before or after the
/// new one as the writer placed it.
pub fn outlook_reply_old_first(block: &str, old_block: &str) -> String {
    let body = format!(
        "From: Bo <bo@example.net>\r\nSent: Sunday\r\nSubject: [Yam] Khan g1 #4\r\n\r\n{}\r\n\r\n-----\r\nMy move:\r\n{}",
        old_block.replace('\n', "\r\n"),
        block.replace('\n', "\r\n")
    );
    format!(
        "{}\r\n{body}",
        headers(
            "text/plain; charset=UTF-8",
            "X-Mailer: Microsoft Outlook 16.0\r\n"
        )
    )
}

/// A reply that re-attaches the earlier record (the mail it answers) and
/// carries the new turn as a block in its text.
pub fn reattached_old_record(block: &str, old_record: &str) -> String {
    let boundary = "b-old";
    format!(
        "{}\r\n--{boundary}\r\nContent-Type: text/plain; charset=UTF-8\r\n\r\nMy move.\r\n\r\n{}\r\n--{boundary}\r\nContent-Type: application/x-yam\r\nContent-Disposition: attachment; filename=\"g1.yam\"\r\n\r\n{}\r\n--{boundary}--\r\n",
        headers(&format!("multipart/mixed; boundary=\"{boundary}\""), ""),
        block.replace('\n', "\r\n"),
        old_record.replace('\n', "\r\n")
    )
}

/// A vacation auto-reply (RFC 3834: `Auto-Submitted: auto-replied`) that
/// quotes the whole turn mail it answers, its turn block unquoted.
pub fn vacation_reply(whole_turn_mail: &str) -> String {
    let body = format!(
        "I am away until Monday and will read your mail then.\r\n\r\n--- Original message ---\r\n{}",
        whole_turn_mail.replace("\r\n", "\n").replace('\n', "\r\n")
    );
    format!(
        "{}\r\n{body}",
        headers(
            "text/plain; charset=UTF-8",
            "Auto-Submitted: auto-replied\r\nX-Autoreply: yes\r\n"
        )
    )
}
