//! A new record's header: one builder for every client (hot-seat, desk,
//! robot, `generate`, `engine import`), so every record Yam writes spells
//! each game type the same way, and the tags stand in canonical order.
//!
//! The `Variant` tag is a label, never checked (`docs/notation.md`): a Khan
//! game's type (`Rescue Khan`), or a Castle Siege or Genghis Khan
//! ruleset's name in title case (`Standard`). Records written by earlier
//! versions with other spellings (`rescue-khan`, `Standard` for every
//! ruleset) read as they are.

use yam_notation::{GameKind, Tags};
use yam_referee::replay::LoadedRuleset;

/// Everything a new record's header says.
#[derive(Debug, Clone)]
pub struct Header<'a> {
    /// The game.
    pub game: GameKind,
    /// The ruleset as loaded (its text decides the Khan game type).
    pub ruleset: &'a LoadedRuleset,
    /// What the `Ruleset` tag says: a built-in ruleset's name, or a ruleset
    /// file's path relative to the record.
    pub ruleset_tag: &'a str,
    /// The game id.
    pub id: &'a str,
    /// The `Date` tag, `YYYY.MM.DD`.
    pub date: &'a str,
    /// The `Event` tag, if any.
    pub event: Option<&'a str>,
    /// The `Site` tag, if any.
    pub site: Option<&'a str>,
    /// The players' names, first seat first (one for Genghis Khan).
    pub players: &'a [String],
}

impl Header<'_> {
    /// The tags, in canonical order, with the result `*`.
    pub fn tags(&self) -> Tags {
        let mut tags = Tags::new();
        tags.set("Game", self.game.name());
        tags.set("Variant", variant(self.game, self.ruleset));
        tags.set("GameId", self.id);
        if let Some(event) = self.event {
            tags.set("Event", event);
        }
        if let Some(site) = self.site {
            tags.set("Site", site);
        }
        tags.set("Date", self.date);
        for (tag, name) in self.game.player_tags().iter().zip(self.players) {
            tags.set(tag, name.as_str());
        }
        tags.set("Result", "*");
        tags.set("NotationVersion", yam_notation::tags::NOTATION_VERSION);
        tags.set("Ruleset", self.ruleset_tag);
        tags
    }
}

/// The `Variant` tag of a game under `ruleset`: a Khan game's type, or a
/// Castle Siege or Genghis Khan ruleset's name in title case.
pub fn variant(game: GameKind, ruleset: &LoadedRuleset) -> String {
    if game == GameKind::Khan
        && let Ok(rules) = yam_referee::khan::Ruleset::from_yaml(&ruleset.text)
    {
        return khan_game_type(rules.game).to_owned();
    }
    title_case(&ruleset.name)
}

/// A Khan game type as the `Variant` tag spells it.
pub fn khan_game_type(game: yam_referee::khan::GameType) -> &'static str {
    use yam_referee::khan::GameType;
    match game {
        GameType::Basic => "Basic",
        GameType::Magician => "Magician",
        GameType::PowerMagician => "Power Magician",
        GameType::RescueGeneral => "Rescue General",
        GameType::RescueKhan => "Rescue Khan",
    }
}

/// `rescue-khan` as `Rescue Khan`.
fn title_case(name: &str) -> String {
    name.split(['-', '_', ' '])
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            chars
                .next()
                .map(|c| c.to_uppercase().chain(chars).collect::<String>())
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Today's date in UTC, `YYYY.MM.DD`.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    date_tag(secs)
}

/// The first whole day (UTC) at whose start `secs` has passed: the day
/// from which something due at `secs` (a forfeit claim, a reminder) is
/// accepted all day long, where the day of `secs` itself would be refused
/// in its morning.
pub fn first_whole_day_from(secs: u64) -> String {
    date_tag(secs.div_ceil(86_400).saturating_mul(86_400))
}

/// `YYYY.MM.DD` of a time in seconds since 1970 (UTC), for the `Date` tag.
pub fn date_tag(secs: u64) -> String {
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use yam_referee::replay::load_ruleset;

    #[test]
    fn every_game_type_has_one_spelling() {
        let khan = load_ruleset(GameKind::Khan, "rescue-khan").unwrap();
        assert_eq!(variant(GameKind::Khan, &khan), "Rescue Khan");
        let siege = load_ruleset(GameKind::CastleSiege, "standard").unwrap();
        assert_eq!(variant(GameKind::CastleSiege, &siege), "Standard");
        assert_eq!(title_case("power_magician"), "Power Magician");
        assert_eq!(date_tag(1_796_083_200), "2026.12.01");
    }
}
