//! The pieces' rule-bearing properties: demotion and promotion chains, who
//! casts spells, who is mounted, who leads. The letters and names are syntax
//! and live in `yam_notation::khan`; what they mean is here.

pub use yam_notation::khan::{Captive, Kind, Piece, Side};

use super::ruleset::PowerMagicianMoves;

/// KR-4.2: what a spell turns `kind` into, or `None` if it cannot be demoted
/// (S, I, G and F). Whether a khan may be targeted is an option (KR-4.3).
pub const fn demoted(kind: Kind) -> Option<Kind> {
    match kind {
        Kind::Khan => Some(Kind::KhanArcher),
        Kind::KhanArcher => Some(Kind::KhanSword),
        Kind::PowerMagician => Some(Kind::Magician),
        Kind::Magician => Some(Kind::DemotedMagician),
        Kind::Warrior => Some(Kind::Archer),
        Kind::Archer => Some(Kind::Swordsman),
        Kind::Assassin => Some(Kind::Swordsman),
        Kind::KhanSword | Kind::Swordsman | Kind::DemotedMagician | Kind::Bondsman => None,
    }
}

/// KR-5.1: what `kind` becomes on arriving in the enemy camp: S, N and A
/// become W; I->J, J->K, G->M, M->H; W, F, K and H stay as they are.
pub const fn base_promoted(kind: Kind) -> Kind {
    match kind {
        Kind::Swordsman | Kind::Assassin | Kind::Archer => Kind::Warrior,
        Kind::KhanSword => Kind::KhanArcher,
        Kind::KhanArcher => Kind::Khan,
        Kind::DemotedMagician => Kind::Magician,
        Kind::Magician => Kind::PowerMagician,
        Kind::Warrior | Kind::Bondsman | Kind::Khan | Kind::PowerMagician => kind,
    }
}

/// KR-5.2: what the capturer becomes when capture promotions are on:
/// S capturing A becomes A; S or A capturing W becomes W.
pub const fn capture_promoted(capturer: Kind, victim: Kind) -> Kind {
    match (capturer, victim) {
        (Kind::Swordsman, Kind::Archer) => Kind::Archer,
        (Kind::Swordsman | Kind::Archer, Kind::Warrior) => Kind::Warrior,
        _ => capturer,
    }
}

/// KR-5.3, KR-P9: what an exchange receiver becomes (one step up), or `None`
/// if it cannot receive. Only khan-type and magician-type pieces receive, and
/// K and H have no step up.
pub const fn exchange_receives(kind: Kind) -> Option<Kind> {
    match kind {
        Kind::KhanSword => Some(Kind::KhanArcher),
        Kind::KhanArcher => Some(Kind::Khan),
        Kind::DemotedMagician => Some(Kind::Magician),
        Kind::Magician => Some(Kind::PowerMagician),
        _ => None,
    }
}

/// KR-5.3: what an exchange giver becomes (one step down), or `None` if it
/// cannot give its horse: F->W, W->A, A->S.
pub const fn exchange_gives(kind: Kind) -> Option<Kind> {
    match kind {
        Kind::Bondsman => Some(Kind::Warrior),
        Kind::Warrior => Some(Kind::Archer),
        Kind::Archer => Some(Kind::Swordsman),
        _ => None,
    }
}

/// M, H and G: they cast spells (KR-4.1) and stand on manned tower squares
/// unharmed (KR-7.1).
pub const fn is_magician(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Magician | Kind::PowerMagician | Kind::DemotedMagician
    )
}

/// K, J and I: the khan-type leader (KR-6.1).
pub const fn is_khan_type(kind: Kind) -> bool {
    matches!(kind, Kind::Khan | Kind::KhanArcher | Kind::KhanSword)
}

/// KR-3.10: the "sword type" pieces, S and I.
pub const fn is_sword(kind: Kind) -> bool {
    matches!(kind, Kind::Swordsman | Kind::KhanSword)
}

/// KR-3.10: the mounted pieces, W, F, K and H.
pub const fn is_mounted(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Warrior | Kind::Bondsman | Kind::Khan | Kind::PowerMagician
    )
}

/// KR-4.1: a caster's spell range before `magicianExtendedDemotionSqs`.
pub const fn base_spell_range(kind: Kind) -> Option<u8> {
    match kind {
        Kind::Magician | Kind::PowerMagician => Some(2),
        Kind::DemotedMagician => Some(1),
        _ => None,
    }
}

/// How a kind moves, in words, for error messages (KR-3).
pub const fn movement_words(kind: Kind, power: PowerMagicianMoves) -> &'static str {
    match kind {
        Kind::Swordsman | Kind::KhanSword => "it moves one square diagonally",
        Kind::Archer | Kind::KhanArcher => "it moves one square in any direction",
        Kind::Assassin => "it moves one or two squares along a rank or file",
        Kind::Magician | Kind::DemotedMagician => "it moves one square along a rank or file",
        Kind::Warrior => "it moves one or two king steps",
        Kind::PowerMagician => match power {
            PowerMagicianMoves::Warrior => "it moves one or two king steps",
            PowerMagicianMoves::Orthogonal => "it moves one or two squares along a rank or file",
        },
        Kind::Bondsman => {
            "it moves one or two king steps, or up to three squares along a rank or file"
        }
        Kind::Khan => "it moves one or two king steps, or up to three squares in a straight line",
    }
}

/// "a warrior", "an archer": a kind's name with its indefinite article.
pub fn with_article(kind: Kind) -> String {
    let name = kind.name();
    let article = if name.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {name}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_go_one_step_and_stop_at_the_bottom() {
        assert_eq!(demoted(Kind::Khan), Some(Kind::KhanArcher));
        assert_eq!(demoted(Kind::KhanArcher), Some(Kind::KhanSword));
        assert_eq!(demoted(Kind::KhanSword), None);
        assert_eq!(demoted(Kind::Bondsman), None);
        for k in Kind::ALL {
            if let Some(up) = exchange_receives(k) {
                assert_eq!(demoted(up), Some(k), "{k} up and down again");
            }
            if let Some(down) = exchange_gives(k) {
                assert!(demoted(down).is_some() || down == Kind::Swordsman);
            }
        }
        assert_eq!(base_promoted(Kind::Assassin), Kind::Warrior);
        assert_eq!(base_promoted(Kind::Bondsman), Kind::Bondsman);
        assert_eq!(with_article(Kind::Archer), "an archer");
        assert_eq!(with_article(Kind::Warrior), "a warrior");
    }
}
