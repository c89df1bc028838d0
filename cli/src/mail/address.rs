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

/// `address` in its normal form: trimmed, every letter lower case.
pub fn normal(address: &str) -> String {
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
}
