//! Dates and times as the pages write them: ISO 8601 for `<time datetime>`, and a day a
//! person reads ("30 Nov 2026"), in UTC (the phone's own zone is the script's job).

use std::time::SystemTime;

/// An ISO 8601 timestamp and a short human date ("30 Nov 2026"), both in UTC.
pub(crate) fn format_time(t: SystemTime) -> (String, String) {
    let secs = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let iso = format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    );
    let human = format!("{d} {} {y}", MONTHS[(m - 1) as usize]);
    (iso, human)
}

/// Days since 1970-01-01 → (year, month 1–12, day 1–31), proleptic Gregorian.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn time_formats() {
        let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_000_000);
        assert_eq!(
            format_time(t),
            ("2026-11-30T00:53:20Z".into(), "30 Nov 2026".into())
        );
        assert_eq!(format_time(SystemTime::UNIX_EPOCH).1, "1 Jan 1970");
        let leap = SystemTime::UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(format_time(leap).1, "29 Feb 2000");
    }
}
