//! Time, injectable: the robot reads the clock once per cycle, and tests
//! (and `--now`) set it, so deadlines of weeks run in milliseconds.

/// Seconds since 1970-01-01 UTC, from `--now`, `YAM_ROBOT_NOW` or the
/// system clock, in that order.
pub fn now(flag: Option<&str>) -> Result<u64, String> {
    if let Some(text) = flag {
        return parse_time(text);
    }
    if let Ok(text) = std::env::var("YAM_ROBOT_NOW") {
        return parse_time(&text);
    }
    Ok(std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()))
}

/// Days from 1970-01-01 of a civil date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Reads `2026-12-01T00:00:00Z` (UTC only) or plain seconds since 1970.
pub fn parse_time(text: &str) -> Result<u64, String> {
    let text = text.trim();
    if let Ok(secs) = text.parse::<u64>() {
        return Ok(secs);
    }
    let expected =
        || format!("{text:?}: expected YYYY-MM-DDTHH:MM:SSZ (UTC) or seconds since 1970");
    let t = text.strip_suffix('Z').ok_or_else(expected)?;
    let (date, time) = t.split_once('T').ok_or_else(expected)?;
    let d: Vec<i64> = date
        .split('-')
        .map(|p| p.parse().map_err(|_| expected()))
        .collect::<Result<_, _>>()?;
    let h: Vec<i64> = time
        .split(':')
        .map(|p| p.parse().map_err(|_| expected()))
        .collect::<Result<_, _>>()?;
    let ([y, mo, da], [hh, mi, ss]) = (d.as_slice(), h.as_slice()) else {
        return Err(expected());
    };
    if !(1..=12).contains(mo) || !(1..=31).contains(da) || *hh > 23 || *mi > 59 || *ss > 60 {
        return Err(expected());
    }
    let secs = days_from_civil(*y, *mo, *da) * 86_400 + hh * 3600 + mi * 60 + ss;
    u64::try_from(secs).map_err(|_| expected())
}

/// `YYYY.MM.DD` of a time, for the record's Date tag.
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

/// What a silent game is owed after `days` of silence: the reminders
/// (days) not yet sent, and whether the forfeit is due.
pub fn due(days: u64, reminders: &[u32], forfeit: u32, sent: &[u32]) -> (Vec<u32>, bool) {
    if days >= u64::from(forfeit) {
        return (Vec::new(), true);
    }
    // Only the latest reminder due is sent: a robot down for a month does
    // not send three reminders at once.
    let latest = reminders
        .iter()
        .copied()
        .filter(|d| u64::from(*d) <= days)
        .max();
    (
        latest.filter(|d| !sent.contains(d)).into_iter().collect(),
        false,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_and_write() {
        assert_eq!(parse_time("1970-01-01T00:00:00Z"), Ok(0));
        assert_eq!(parse_time("2026-12-01T00:00:00Z"), Ok(1_796_083_200));
        assert_eq!(parse_time("42"), Ok(42));
        assert!(parse_time("2026-13-01T00:00:00Z").is_err());
        assert!(parse_time("yesterday").is_err());
        assert!(parse_time("2026-12-01T00:00:00").is_err());
        assert_eq!(date_tag(1_796_083_200), "2026.12.01");
    }

    #[test]
    fn reminders_then_the_forfeit() {
        let r = [14, 28, 35];
        assert_eq!(due(13, &r, 40, &[]), (vec![], false));
        assert_eq!(due(14, &r, 40, &[]), (vec![14], false));
        assert_eq!(due(20, &r, 40, &[14]), (vec![], false));
        assert_eq!(due(30, &r, 40, &[14]), (vec![28], false));
        assert_eq!(due(36, &r, 40, &[]), (vec![35], false));
        assert_eq!(due(39, &r, 40, &[14, 28, 35]), (vec![], false));
        assert_eq!(due(40, &r, 40, &[14, 28, 35]), (vec![], true));
    }
}
