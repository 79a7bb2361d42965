//! What a source leaves out, guessed from what it says, and marked as guessed.
//!
//! - **base**: the spirit families (by ingredient name) that carry at least half the
//!   volume of the largest spirit; with no spirit, a sparkling wine or wine; else none.
//! - **glass**: the first glass the instructions (or description) name.
//! - **method**: Muddle, Dry Shake, Shake, Stir, Blend or Build as the instructions say,
//!   then Double Strain.
//! - **ice**: Crushed, Large Cube or Cubed when the instructions serve the drink on ice.
//!
//! Each field filled here gets a mark ("base guessed from the ingredients"); each one
//! still empty gets "… not given", so the person sees what to check before saving.

use super::incoming::Incoming;

/// Spirit families by a word of the ingredient's name, most specific first.
const SPIRITS: &[(&str, &str)] = &[
    ("apple brandy", "Apple Brandy"),
    ("applejack", "Apple Brandy"),
    ("calvados", "Apple Brandy"),
    ("bourbon", "Bourbon"),
    ("rye", "Rye"),
    ("scotch", "Scotch"),
    ("whiskey", "Whiskey"),
    ("whisky", "Whiskey"),
    ("mezcal", "Mezcal"),
    ("tequila", "Tequila"),
    ("cognac", "Cognac"),
    ("armagnac", "Brandy"),
    ("pisco", "Pisco"),
    ("brandy", "Brandy"),
    ("cachaça", "Cachaça"),
    ("cachaca", "Cachaça"),
    ("absinthe", "Absinthe"),
    ("genever", "Gin"),
    ("gin", "Gin"),
    ("vodka", "Vodka"),
    ("rhum", "Rum"),
    ("rum", "Rum"),
];

const WINES: &[(&str, &str)] = &[
    ("champagne", "Sparkling Wine"),
    ("prosecco", "Sparkling Wine"),
    ("cava", "Sparkling Wine"),
    ("sparkling wine", "Sparkling Wine"),
    ("wine", "Wine"),
];

/// Glasses by what instructions call them, in our vocabulary.
const GLASSES: &[(&str, &str)] = &[
    ("nick and nora", "Nick and Nora"),
    ("nick & nora", "Nick and Nora"),
    ("coupe", "Coupe"),
    ("champagne flute", "Flute"),
    ("flute", "Flute"),
    ("double rocks", "Lowball"),
    ("rocks glass", "Lowball"),
    ("old fashioned glass", "Lowball"),
    ("old-fashioned glass", "Lowball"),
    ("lowball", "Lowball"),
    ("highball", "Highball"),
    ("collins", "Highball"),
    ("martini glass", "Cocktail Glass"),
    ("cocktail glass", "Cocktail Glass"),
    ("julep", "Julep Tin"),
    ("hurricane", "Hurricane"),
    ("tiki mug", "Tiki Mug"),
    ("wine glass", "Wine Glass"),
    ("copper mug", "Mug"),
    ("shot glass", "Shot Glass"),
];

/// Fills what `draft` left empty and marks it.
pub(crate) fn fill(draft: &mut Incoming) {
    let hints = draft.hints.to_lowercase();
    if draft.base.is_empty() {
        draft.base = base(draft);
        let message = if draft.base.is_empty() {
            "base not given"
        } else {
            "base guessed from the ingredients"
        };
        draft.mark("base", message);
    }
    if draft.glass.is_empty() {
        let found = first_named(&hints, GLASSES);
        draft.glass.extend(found.map(str::to_owned));
        let message = if draft.glass.is_empty() {
            "glass not given"
        } else {
            "glass guessed from the instructions"
        };
        draft.mark("glass", message);
    }
    if draft.method.is_empty() {
        draft.method = method(&hints);
        let message = if draft.method.is_empty() {
            "method not given"
        } else {
            "method guessed from the instructions"
        };
        draft.mark("method", message);
    }
    if draft.ice.is_empty() {
        draft.ice.extend(ice(&hints).map(str::to_owned));
        let message = if draft.ice.is_empty() {
            "ice not given (served up?)"
        } else {
            "ice guessed from the instructions"
        };
        draft.mark("ice", message);
    }
}

/// The name of the entry of `table` whose text comes first in `text`.
fn first_named(text: &str, table: &[(&str, &'static str)]) -> Option<&'static str> {
    table
        .iter()
        .filter_map(|(word, name)| text.find(word).map(|at| (at, *name)))
        .min_by_key(|(at, _)| *at)
        .map(|(_, name)| name)
}

/// Whether `word` is a whole word of `text` (both lower case).
fn has_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        before.is_none_or(|c| !c.is_alphanumeric()) && after.is_none_or(|c| !c.is_alphanumeric())
    })
}

fn family(name: &str, table: &[(&str, &'static str)]) -> Option<&'static str> {
    let name = name.to_lowercase();
    table
        .iter()
        .find(|(word, _)| has_word(&name, word))
        .map(|(_, family)| *family)
}

fn base(draft: &Incoming) -> Vec<String> {
    for table in [SPIRITS, WINES] {
        let mut volumes: Vec<(&'static str, f64)> = Vec::new();
        for row in &draft.ingredients {
            let Some(family) = family(&row.name, table) else {
                continue;
            };
            let ml = millilitres(&row.measure, &row.unit);
            match volumes.iter_mut().find(|(f, _)| *f == family) {
                Some((_, v)) => *v += ml,
                None => volumes.push((family, ml)),
            }
        }
        let largest = volumes.iter().map(|(_, v)| *v).fold(0.0, f64::max);
        let chosen: Vec<String> = volumes
            .iter()
            .filter(|(_, v)| *v >= largest / 2.0)
            .map(|(f, _)| (*f).to_owned())
            .collect();
        if !chosen.is_empty() {
            return chosen;
        }
    }
    Vec::new()
}

/// About how much a row holds, in ml (a count or an unknown amount as 1).
fn millilitres(measure: &str, unit: &str) -> f64 {
    let per = match unit {
        "ml" => 1.0,
        "cl" => 10.0,
        "oz" | "shot" => 30.0,
        "part" => 30.0,
        "tbsp" => 15.0,
        "tsp" | "barspoon" => 5.0,
        _ => 1.0,
    };
    let first = measure.split(['-', '–']).next().unwrap_or("").trim();
    let value = quantity(first).unwrap_or(1.0);
    value * per
}

/// `2`, `22.5`, `1/2`, `1 1/2`, `1½`.
fn quantity(text: &str) -> Option<f64> {
    let glyphs = [
        ('¼', 0.25),
        ('½', 0.5),
        ('¾', 0.75),
        ('⅓', 1.0 / 3.0),
        ('⅔', 2.0 / 3.0),
    ];
    if let Some(last) = text.chars().next_back()
        && let Some((_, part)) = glyphs.iter().find(|(g, _)| *g == last)
    {
        let whole = text[..text.len() - last.len_utf8()].trim();
        return Some(whole.parse::<f64>().unwrap_or(0.0) + part);
    }
    let fraction = |t: &str| -> Option<f64> {
        let (a, b) = t.split_once('/')?;
        let (a, b): (f64, f64) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
        (b > 0.0).then(|| a / b)
    };
    if let Some((whole, part)) = text.split_once(' ') {
        return Some(whole.parse::<f64>().ok()? + fraction(part)?);
    }
    fraction(text).or_else(|| text.replace(',', ".").parse().ok())
}

fn method(hints: &str) -> Vec<String> {
    let mut out = Vec::new();
    if hints.contains("muddle") {
        out.push("Muddle");
    }
    if hints.contains("dry shake") || hints.contains("dry-shake") {
        out.push("Dry Shake");
    }
    if hints.contains("shake") || hints.contains("shaker") {
        out.push("Shake");
    } else if has_word(hints, "stir") || hints.contains("mixing glass") {
        out.push("Stir");
    } else if hints.contains("blend") {
        out.push("Blend");
    } else if hints.contains("build") || hints.contains("pour") || hints.contains("top with") {
        out.push("Build");
    }
    if hints.contains("double strain") || hints.contains("fine strain") {
        out.push("Double Strain");
    }
    out.into_iter().map(str::to_owned).collect()
}

fn ice(hints: &str) -> Option<&'static str> {
    if hints.contains("crushed ice") || hints.contains("pebble ice") {
        Some("Crushed")
    } else if hints.contains("large cube")
        || hints.contains("big cube")
        || hints.contains("large ice cube")
    {
        Some("Large Cube")
    } else if hints.contains("over ice")
        || hints.contains("fresh ice")
        || hints.contains("ice cubes")
        || hints.contains("filled with ice")
    {
        Some("Cubed")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guesses_are_marked() {
        let mut d = Incoming {
            hints: "Shake hard and double strain into a chilled coupe.".to_owned(),
            ..Incoming::default()
        };
        d.add_line("2 oz white rum");
        d.add_line("1 oz lime juice");
        fill(&mut d);
        assert_eq!(d.base, ["Rum"]);
        assert_eq!(d.glass, ["Coupe"]);
        assert_eq!(d.method, ["Shake", "Double Strain"]);
        assert!(d.ice.is_empty());
        let fields: Vec<&str> = d.guesses.iter().map(|g| g.field.as_str()).collect();
        assert_eq!(fields, ["base", "glass", "method", "ice"]);
        assert_eq!(d.guesses[0].message, "base guessed from the ingredients");
    }

    #[test]
    fn half_of_the_largest_spirit() {
        let mut d = Incoming::default();
        d.add_line("45 ml bourbon");
        d.add_line("15 ml rye whiskey");
        d.add_line("2 oz ginger beer");
        fill(&mut d);
        assert_eq!(d.base, ["Bourbon"]);
        assert_eq!(d.guesses[1].message, "glass not given");
    }
}
