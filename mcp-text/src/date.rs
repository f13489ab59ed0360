//! Dates as the formats carry them: ADF's `date` node holds a UTC timestamp in milliseconds; storage format's
//! `<time datetime>` and our Markdown hold the day it falls on, `YYYY-MM-DD` (Howard Hinnant's civil-calendar
//! algorithms, exact for every day of the proleptic Gregorian calendar).

const DAY_MS: i64 = 86_400_000;

/// The day (UTC) of a millisecond timestamp, as `YYYY-MM-DD`.
pub fn format_day(ms: i64) -> String {
    let z = ms.div_euclid(DAY_MS) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    if !(0..=9999).contains(&y) {
        return format!("{y:04}-{m:02}-{d:02}");
    }
    // Four digits, two, two: what `format!` gives, without its machinery (a document may hold
    // thousands of dates).
    let digit = |n: i64| char::from(b'0' + n as u8);
    String::from_iter([
        digit(y / 1000),
        digit(y / 100 % 10),
        digit(y / 10 % 10),
        digit(y % 10),
        '-',
        digit(m / 10),
        digit(m % 10),
        '-',
        digit(d / 10),
        digit(d % 10),
    ])
}

/// The millisecond timestamp of UTC midnight on `YYYY-MM-DD`; `None` unless `s` is exactly such a day and
/// the day exists (`2023-02-30` does not: it would not come back the same).
pub fn parse_day(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let digits =
        |r: std::ops::Range<usize>| b[r.clone()].iter().all(u8::is_ascii_digit).then(|| &s[r]);
    let y: i64 = digits(0..4)?.parse().ok()?;
    let m: i64 = digits(5..7)?.parse().ok()?;
    let d: i64 = digits(8..10)?.parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let (yy, mm) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let doy = (153 * mm + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let ms = (era * 146_097 + doe - 719_468) * DAY_MS;
    (format_day(ms) == s).then_some(ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_and_timestamps_agree() {
        assert_eq!(format_day(0), "1970-01-01");
        assert_eq!(format_day(1_705_276_800_000), "2024-01-15");
        assert_eq!(format_day(1_705_276_800_000 + DAY_MS - 1), "2024-01-15");
        assert_eq!(format_day(-1), "1969-12-31");
        // The first and last days of four digits, and the days either side (written by `format!`).
        assert_eq!(format_day(-719_528 * DAY_MS), "0000-01-01");
        assert_eq!(format_day(-719_529 * DAY_MS), "-001-12-31");
        assert_eq!(format_day(2_932_896 * DAY_MS), "9999-12-31");
        assert_eq!(format_day(2_932_897 * DAY_MS), "10000-01-01");
        assert_eq!(parse_day("2024-01-15"), Some(1_705_276_800_000));
        assert_eq!(parse_day("2024-02-29"), Some(1_709_164_800_000));
        for day in [-700_000, -1, 0, 1, 11_016, 19_737, 2_932_896] {
            assert_eq!(
                parse_day(&format_day(day * DAY_MS)),
                Some(day * DAY_MS),
                "{day}"
            );
        }
    }

    #[test]
    fn what_is_not_a_day_is_none() {
        for s in [
            "2023-02-30",
            "2023-13-01",
            "2023-00-10",
            "2023-1-10",
            "+023-01-10",
            "2023/01/10",
            "2023-01-1x",
        ] {
            assert_eq!(parse_day(s), None, "{s}");
        }
    }
}
