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
            out.push_str(&nfc.normalize(domain).to_lowercase());
        }
    }
    out
}

/// The normal form an earlier build gave `address` (trimmed, lower case),
/// under which the robot filed a player: looked for when the normal form
/// finds none, so a player registered before the forty-first step is
/// still known.
pub fn earlier_normal(address: &str) -> String {
    address.trim().to_lowercase()
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
}
