//! One normal form of a mail address, for every comparison of two
//! addresses and every name something is filed under.
//!
//! Mail programs write an address's letters in either case, and the
//! domain's case never matters; Yam takes the local part's case to not
//! matter either (every mail service a player uses treats it so). The
//! normal form lower-cases the whole address, Unicode letters too: the
//! desk once lower-cased ASCII only (its own address, a card's, a
//! contact's) while the mail reader and the robot lower-case a `From`
//! whole, so a player whose address held a capital beyond ASCII (`Ümit`)
//! sent a card that named another address than her mail's sender and was
//! never confirmed
//! (`robot_local::a_card_from_an_address_with_a_capital_beyond_ascii_names_its_sender`).
//! What an earlier build filed under its ASCII-only form (contacts, a
//! game's opponent, a challenge waiting for a card) is compared in this
//! form when read, so it keeps working.

/// `address` in its normal form: trimmed; its local part in Unicode's
/// composed form (NFC, as RFC 6532 asks: `ü` one code point, not `u` and a
/// combining diaeresis, which a macOS file name holds), every letter lower
/// case, a Greek final sigma as the other sigma (`ΝΙΚΟΣ.Π` lowers its `Σ`
/// before a dot and a letter to `σ`, its owner writes `ς`); its domain in
/// its Unicode form by UTS 46 (`xn--bcher-kva.example` is
/// `bücher.example`: one domain to DNS and every mail server, written
/// either way by mail programs and gateways without SMTPUTF8). Each of
/// these split one player into two until the forty-first step's second
/// helper on addresses found it
/// (`a_challenge_to_the_other_form_of_an_international_domain_is_sent_when_its_card_comes`,
/// `..._typed_in_nfd_...`, `..._typed_in_greek_capitals_...`, and their
/// robot twins). A domain UTS 46 refuses is kept lower-cased as it was.
pub fn normal(address: &str) -> String {
    let address = address.trim();
    let (local, domain) = match address.rsplit_once('@') {
        Some((local, domain)) => (local, Some(domain)),
        None => (address, None),
    };
    let nfc = icu_normalizer::ComposingNormalizerBorrowed::new_nfc();
    let mut out = nfc.normalize(local).to_lowercase().replace('ς', "σ");
    if let Some(domain) = domain {
        out.push('@');
        let (unicode, errors) = idna::domain_to_unicode(domain);
        if errors.is_ok() && !unicode.is_empty() {
            out.push_str(&unicode);
        } else {
            // A domain UTS 46 refuses as a whole (its bidi rule refuses a
            // label that starts with a digit beside a right-to-left one,
            // `1mail.xn--4dbrk0ce`, an ordinary routed host): each of its
            // punycode labels decoded alone, so that both its forms are
            // still one domain; but only a label that is the exact IDNA
            // encoding of what it decodes to (encoded again, the same
            // label). A label that decodes to what UTS 46 would still map
            // (a fullwidth letter, a capital, a soft hyphen, an ideographic
            // full stop) or to plain ASCII is another host, kept as
            // written: decoded, `ann@xn--layer-wr33a.test` was
            // `ann@\u{ff50}layer.test`, whose own normal form is
            // `ann@player.test` (a normal form that was none, and a forger's
            // address filed as a newcomer's), and `xn--wca` (`Ü`) was
            // `xn--tda` (`ü`), two hosts as one.
            let lower = nfc.normalize(domain).to_lowercase();
            let labels: Vec<String> = lower
                .split('.')
                .map(|label| {
                    label
                        .strip_prefix("xn--")
                        .and_then(idna::punycode::decode_to_string)
                        .filter(|decoded| {
                            idna::domain_to_ascii(decoded).is_ok_and(|again| again == label)
                        })
                        .unwrap_or_else(|| label.to_owned())
                })
                .collect();
            out.push_str(&labels.join("."));
        }
    }
    out
}

/// Whether `a` and `b` are one address.
pub fn same(a: &str, b: &str) -> bool {
    normal(a) == normal(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_normal_form_lower_cases_letters_beyond_ascii_too() {
        assert_eq!(normal(" Ümit@Player.TEST "), "ümit@player.test");
        assert!(same("Ümit@player.test", "ümit@PLAYER.test"));
        assert!(!same("umit@player.test", "ümit@player.test"));
    }

    #[test]
    fn one_mailbox_written_in_each_of_its_forms_is_one_address() {
        assert!(same("bo@xn--bcher-kva.example", "bo@BÜCHER.example"));
        assert!(same("u\u{308}mit@example.net", "ümit@example.net"));
        assert!(same("ΝΙΚΟΣ.Π@example.net", "νικος.π@example.net"));
        // Still two mailboxes, as every mail server has them.
        assert!(!same("strasse@example.net", "straße@example.net"));
        // A domain UTS 46 refuses is kept, lower-cased.
        assert_eq!(normal("Ann@Bad_Domain..X"), "ann@bad_domain..x");
    }

    /// Real life: a mail host under a right-to-left top-level domain whose
    /// own label starts with a digit (`1mail.ישראל`, Israel's Hebrew ccTLD,
    /// `xn--4dbrk0ce` in ASCII; `3com.امارات`). The ASCII form is an
    /// ordinary host name that DNS and every mail server route, but UTS 46
    /// refuses both forms (its bidi rule: in a domain with a right-to-left
    /// label, no label may start with a digit), and `normal` then keeps
    /// each form as it was written: the one mailbox is two addresses, two
    /// players at the robot and two contacts at a desk, which the normal
    /// form is there to prevent (docs/mail.md, "One normal form for an
    /// address": `bo@xn--bcher-kva.example` is `bo@bücher.example`). The
    /// punycode labels decode whatever the bidi rule says of the whole.
    #[test]
    fn a_domain_the_bidi_rule_refuses_is_still_one_address_in_both_forms() {
        assert!(
            same("bo@1mail.xn--4dbrk0ce", "bo@1mail.ישראל"),
            "{:?} and {:?}",
            normal("bo@1mail.xn--4dbrk0ce"),
            normal("bo@1mail.ישראל")
        );
        assert!(
            same("bo@3com.xn--mgbaam7a8h", "bo@3com.امارات"),
            "{:?} and {:?}",
            normal("bo@3com.xn--mgbaam7a8h"),
            normal("bo@3com.امارات")
        );
    }

    /// Attack (a forger, or a gateway's mangling): a domain label in ASCII
    /// whose punycode decodes to text UTS 46 would still map (a fullwidth
    /// letter, a soft hyphen, an ideographic full stop). UTS 46 refuses
    /// the whole domain, since such a label is not in its mapped form, and
    /// the per-label fallback keeps the decoded text as it is: the normal
    /// form of `ann@xn--layer-wr33a.test` is `ann@\u{ff50}layer.test`, whose
    /// own normal form is `ann@player.test`. The normal form is no longer
    /// a normal form: whatever is filed under `address_key(normal(from))`
    /// (`auth::address_key` normalizes again) is filed under another
    /// player's key than `same` compares, and the one-time migration's
    /// `normal(player.address)` moves an address again.
    #[test]
    fn the_normal_form_of_a_normal_form_is_itself() {
        for address in [
            // `\u{ff50}layer`: a fullwidth `p`.
            "ann@xn--layer-wr33a.test",
            // `pla\u{ad}yer`: a soft hyphen.
            "ann@xn--player-dja.test",
            // `\u{fc}\u{3002}x`: an ideographic full stop in one label.
            "bo@xn--x-dha8227a.example",
        ] {
            let once = normal(address);
            assert_eq!(
                normal(&once),
                once,
                "{address:?} normalizes to {once:?}, which normalizes to another form"
            );
        }
    }

    /// Two mailboxes, one normal form: `xn--wca` (the punycode of `\u{dc}`,
    /// a capital, which IDNA never writes but DNS routes as any host
    /// label) and `xn--tda` (`\u{fc}`) are two hosts, and `xn--a-` (no
    /// encoded letter) is another host than `a`; the per-label fallback
    /// lower-cases and decodes each into the other's form, so the robot
    /// files the two senders as one player (one key, one token, one
    /// seat) and a desk as one contact.
    #[test]
    fn two_host_names_are_two_addresses() {
        for (one, other) in [
            ("bo@xn--wca.mail.example", "bo@xn--tda.mail.example"),
            ("bo@xn--mail-.example", "bo@mail.example"),
        ] {
            assert!(
                !same(one, other),
                "{one:?} and {other:?} are two mailboxes, one normal form {:?}",
                normal(one)
            );
        }
    }

    proptest::proptest! {
        /// The normal form is one: normalized again, it is itself, for
        /// addresses made of the pieces that each form of it turned on
        /// (cases beyond ASCII, NFD marks, sigmas, fullwidth letters and
        /// stops, punycode labels good and bad, right-to-left text, digits
        /// that start a label).
        #[test]
        fn the_normal_form_is_stable_for_any_address(
            local in proptest::collection::vec(
                proptest::sample::select(vec!["a", "Ü", "u\u{308}", "Σ", "ς", "İ", "ß", "\u{212a}", "ｐ", "."]),
                1..6,
            ),
            labels in proptest::collection::vec(
                proptest::sample::select(vec![
                    "xn--bcher-kva", "bücher", "BÜCHER", "xn--layer-wr33a", "ｐlayer", "xn--wca",
                    "xn--tda", "xn--mail-", "1mail", "xn--4dbrk0ce", "ישראל", "ü。x", "xn--",
                    "Mail", "a\u{ad}b", "xn--zz",
                ]),
                1..4,
            ),
        ) {
            let address = format!("{}@{}", local.concat(), labels.join("."));
            let once = normal(&address);
            proptest::prop_assert_eq!(normal(&once), once.clone(), "{:?}", address);
        }
    }
}
