//! The two armies: which unit types each side fields and how many, and the
//! unit types' standing traits (what may enter the castle, what may breach,
//! what may attack).

pub use yam_notation::castle_siege::{Side, UnitKind};

/// The Defender's 16 units.
pub const DEFENDER_ARMY: [(UnitKind, u8); 4] = [
    (UnitKind::Cannon, 4),
    (UnitKind::Knight, 4),
    (UnitKind::Archer, 4),
    (UnitKind::Cauldron, 4),
];

/// The Attacker's 28 units.
pub const ATTACKER_ARMY: [(UnitKind, u8); 6] = [
    (UnitKind::Cannon, 4),
    (UnitKind::Knight, 8),
    (UnitKind::Archer, 4),
    (UnitKind::Sapper, 4),
    (UnitKind::Ram, 4),
    (UnitKind::Tower, 4),
];

/// A side's army: each unit type it fields, with how many.
pub const fn army(side: Side) -> &'static [(UnitKind, u8)] {
    match side {
        Side::Defender => &DEFENDER_ARMY,
        Side::Attacker => &ATTACKER_ARMY,
    }
}

/// How many units of `kind` `side` fields (0 if none).
pub fn army_count(side: Side, kind: UnitKind) -> usize {
    army(side)
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or(0, |(_, n)| usize::from(*n))
}

/// Whether `side` fields units of `kind` at all.
pub fn fields(side: Side, kind: UnitKind) -> bool {
    army_count(side, kind) > 0
}

/// The size of a side's army: 16 or 28.
pub fn army_size(side: Side) -> usize {
    army(side).iter().map(|(_, n)| usize::from(*n)).sum()
}

/// CS-21: the Attacker's cannons, rams and siege towers may never enter a
/// castle square.
pub const fn barred_from_castle(side: Side, kind: UnitKind) -> bool {
    matches!(side, Side::Attacker)
        && matches!(kind, UnitKind::Cannon | UnitKind::Ram | UnitKind::Tower)
}

/// CS-49: the Attacker's units that can enter the castle (knights, archers,
/// sappers). With none of them left the Attacker can no longer win.
pub const fn is_infantry(side: Side, kind: UnitKind) -> bool {
    matches!(side, Side::Attacker)
        && matches!(kind, UnitKind::Knight | UnitKind::Archer | UnitKind::Sapper)
}

/// CS-43: rams and siege towers never attack.
pub const fn can_attack(kind: UnitKind) -> bool {
    !matches!(kind, UnitKind::Ram | UnitKind::Tower)
}

/// The Breach phase's units (CS-29): rams and sappers against an adjacent
/// castle square, cannons up to 2 away. Only the Attacker breaches (CS-11).
/// Returns `(reach, need)`: the farthest distance and the lowest face that
/// makes the breach.
pub const fn breach_profile(side: Side, kind: UnitKind) -> Option<(u8, u8)> {
    match (side, kind) {
        (Side::Attacker, UnitKind::Ram) => Some((1, 5)),
        (Side::Attacker, UnitKind::Sapper) => Some((1, 6)),
        (Side::Attacker, UnitKind::Cannon) => Some((2, 6)),
        _ => None,
    }
}

/// "the defending knight", "an attacking ram": a unit in words.
pub fn unit_words(side: Side, kind: UnitKind) -> String {
    let adjective = match side {
        Side::Defender => "defending",
        Side::Attacker => "attacking",
    };
    format!("{adjective} {}", kind.name())
}

/// The plural of a unit type's name ("siege towers").
pub fn plural(kind: UnitKind) -> String {
    format!("{}s", kind.name())
}
