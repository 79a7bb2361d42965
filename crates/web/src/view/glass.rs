//! Which glass icon a recipe gets, from keywords in its first `glass` entry.
//!
//! Collections name glasses freely ("12oz Lowball", "Coup", "Double Old Fashioned"), so we
//! match folded keywords in a fixed order: the more specific words come first ("tiki mug"
//! before "mug", "brandy balloon" before "wine"). Anything unknown gets the default icon.

use crate::text::fold;
use compact_str::CompactString;

/// (keyword, symbol id in `static/glasses.svg` without the `glass-` prefix).
const KEYWORDS: &[(&str, &str)] = &[
    ("nick", "nicknora"),
    ("tiki", "tiki"),
    ("hurricane", "hurricane"),
    ("poco grande", "hurricane"),
    ("julep", "julep"),
    ("snifter", "snifter"),
    ("balloon", "snifter"),
    ("brandy", "snifter"),
    ("bowl", "bowl"),
    ("punch", "bowl"),
    ("flute", "flute"),
    ("champagne", "flute"),
    ("fizzio", "flute"),
    ("coup", "coupe"),
    ("margarita", "coupe"),
    ("martini", "martini"),
    ("cocktail", "martini"),
    ("highball", "highball"),
    ("collins", "highball"),
    ("zombie", "highball"),
    ("sling", "highball"),
    ("lowball", "lowball"),
    ("rocks", "lowball"),
    ("old fashioned", "lowball"),
    ("tumbler", "lowball"),
    ("toddy", "toddy"),
    ("irish coffee", "toddy"),
    ("mug", "toddy"),
    ("shot", "shot"),
    ("pony", "shot"),
    ("tasting", "shot"),
    ("cordial", "shot"),
    ("sherry", "shot"),
    ("wine", "wine"),
    ("goblet", "wine"),
    ("copa", "wine"),
    ("cobbler", "wine"),
];

/// The icon for a recipe's glasses; only the first entry counts.
pub(crate) fn icon(glasses: &[CompactString]) -> &'static str {
    let Some(first) = glasses.first() else {
        return "default";
    };
    let folded = fold(first);
    KEYWORDS
        .iter()
        .find(|(word, _)| folded.contains(word))
        .map_or("default", |(_, icon)| icon)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_icons_by_keyword() {
        let cases = [
            ("12oz Lowball", "lowball"),
            ("Coupe", "coupe"),
            ("Coup", "coupe"),
            ("Martini", "martini"),
            ("Cocktail Glass", "martini"),
            ("Nick & Nora", "nicknora"),
            ("Nick and Nora", "nicknora"),
            ("Collins", "highball"),
            ("Highball", "highball"),
            ("Double Old Fashioned", "lowball"),
            ("Rocks", "lowball"),
            ("Flute", "flute"),
            ("Wine Glass", "wine"),
            ("Julep Tin", "julep"),
            ("Hurricane", "hurricane"),
            ("Tiki Mug", "tiki"),
            ("Toddy Glass", "toddy"),
            ("Copper Mug", "toddy"),
            ("Shot Glass", "shot"),
            ("Pony", "shot"),
            ("Brandy Balloon", "snifter"),
            ("Punch Bowl", "bowl"),
            ("Unspecified", "default"),
            ("", "default"),
        ];
        for (glass, want) in cases {
            assert_eq!(icon(&[glass.into()]), want, "{glass}");
        }
        assert_eq!(icon(&[]), "default");
        assert_eq!(icon(&["Coupe".into(), "Rocks".into()]), "coupe");
    }

    #[test]
    fn every_icon_exists_in_the_sprite() {
        let sprite = include_str!("../../../../static/glasses.svg");
        for (_, id) in KEYWORDS.iter().chain([&("", "default")]) {
            assert!(
                sprite.contains(&format!("id=\"glass-{id}\"")),
                "missing glass-{id}"
            );
        }
    }
}
