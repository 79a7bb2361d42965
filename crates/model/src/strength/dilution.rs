//! How much water the ice adds, by method: Dave Arnold's measured equations for shaken
//! and stirred drinks, documented figures (or the nearest of those, said so) for the rest.

use crate::text::fold;
use compact_str::CompactString;
use serde::Serialize;

/// How a drink is mixed, as far as dilution goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    Shaken,
    Stirred,
    Built,
    Blended,
    Thrown,
    Swizzled,
    /// Neat, layered or floated: no ice melts into it.
    Neat,
    /// No method this module knows: the drink is counted undiluted, and says so.
    Unknown,
}

/// Where the shaken and stirred equations are published.
pub const ARNOLD: &str = "Dave Arnold, Liquid Intelligence (W. W. Norton, 2014), p. 123: \
dilution of a shaken drink = -1.567 A^2 + 1.742 A + 0.203, of a stirred drink = \
-1.21 A^2 + 1.246 A + 0.145, A the starting ABV as a fraction";

/// Where the built-on-ice figure comes from.
pub const BUILT: &str = "25% for a drink built on ice: the figure of the Liquid Intelligence \
cocktail calculator (Mike McDonald, mikemcdonald.co, 2020), after Arnold's built-drink specs";

impl Method {
    /// The method a recipe's `method` list picks (case- and accent-insensitive). A drink
    /// dry-shaken then shaken is shaken once; blending wins over shaking, shaking over
    /// swizzling, throwing and building, and those over stirring (a drink built and
    /// stirred in its glass is built).
    pub fn pick(methods: &[CompactString]) -> Method {
        let found: Vec<Method> = methods.iter().filter_map(|m| one(&fold(m))).collect();
        [
            Method::Blended,
            Method::Shaken,
            Method::Swizzled,
            Method::Thrown,
            Method::Built,
            Method::Stirred,
            Method::Neat,
        ]
        .into_iter()
        .find(|m| found.contains(m))
        .unwrap_or(Method::Unknown)
    }

    /// The water added, as a fraction of the volume before mixing, for a mix of `abv`
    /// (per cent); never negative.
    pub fn dilution(self, abv: f64) -> f64 {
        let a = (abv / 100.0).clamp(0.0, 1.0);
        let shaken = -1.567 * a * a + 1.742 * a + 0.203;
        let stirred = -1.21 * a * a + 1.246 * a + 0.145;
        let d = match self {
            Method::Shaken | Method::Swizzled | Method::Blended => shaken,
            Method::Stirred | Method::Thrown => stirred,
            Method::Built => 0.25,
            Method::Neat | Method::Unknown => 0.0,
        };
        d.max(0.0)
    }

    /// Where this method's figure comes from, in a sentence.
    pub fn source(self) -> &'static str {
        match self {
            Method::Shaken | Method::Stirred => ARNOLD,
            Method::Swizzled => {
                "swizzled on crushed ice: taken as shaken (Arnold's shaken equation)"
            }
            Method::Blended => {
                "blended with ice: taken as shaken (Arnold's shaken equation); the blended ice \
                 itself is not counted, so the drink is larger and weaker than this"
            }
            Method::Thrown => "thrown: taken as stirred (Arnold's stirred equation)",
            Method::Built => BUILT,
            Method::Neat => "neat, layered or floated: no ice, no water added",
            Method::Unknown => "method not known: counted undiluted",
        }
    }
}

/// The method one folded `method` entry names, if any.
fn one(folded: &str) -> Option<Method> {
    let words: Vec<&str> = folded.split([' ', '-', '/']).collect();
    let has = |w: &[&str]| words.iter().any(|x| w.contains(x));
    Some(if has(&["blend", "blended", "blender", "frozen"]) {
        Method::Blended
    } else if has(&["shake", "shaken", "shaker"]) {
        Method::Shaken
    } else if has(&["swizzle", "swizzled"]) {
        Method::Swizzled
    } else if has(&["throw", "thrown", "roll", "rolled"]) {
        Method::Thrown
    } else if has(&["build", "built"]) {
        Method::Built
    } else if has(&["stir", "stirred"]) {
        Method::Stirred
    } else if has(&["neat", "layer", "layered", "float", "up", "pour"]) {
        Method::Neat
    } else {
        return None;
    })
}
