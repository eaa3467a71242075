//! Byte-driven mutations of kernel source at the token level, for fuzzing the front end with
//! inputs that mostly still parse: each pair of bytes picks an edit (delete, duplicate or swap
//! a line; replace a token with another token of the same source or with a token from a
//! fixed list of Triton words and operators).

/// Tokens spliced into mutated source besides the source's own.
const EXTRA_TOKENS: &[&str] = &[
    "tl.sum",
    "tl.max",
    "tl.dot",
    "tl.where",
    "tl.arange",
    "tl.zeros",
    "tl.load",
    "tl.store",
    "tl.float16",
    "tl.int64",
    "[:, None]",
    "[None, :]",
    "(",
    ")",
    ",",
    "+",
    "*",
    "//",
    "%",
    "<<",
    "&",
    "==",
    "not",
    "and",
    "if",
    "for",
    "in",
    "range",
    "0",
    "1",
    "-1",
    "16",
    "1024",
    "2.5",
    "axis=0",
    "axis=1",
    "None",
    "True",
    ".to",
    ":",
    "=",
    "\n",
    "    ",
];

/// Splits `source` into tokens: runs of identifier characters, runs of spaces, and single
/// other characters (newlines included).
fn tokens(source: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in source.chars() {
        let word = c.is_alphanumeric() || c == '_' || c == '.';
        let extend = match out.last() {
            Some(last) => {
                let l = last.chars().last().unwrap_or(' ');
                (word && (l.is_alphanumeric() || l == '_' || l == '.')) || (c == ' ' && l == ' ')
            }
            None => false,
        };
        if extend {
            if let Some(last) = out.last_mut() {
                last.push(c);
            }
        } else {
            out.push(c.to_string());
        }
    }
    out
}

/// Applies the edits `bytes` describe to `source`.
pub fn mutate(source: &str, bytes: &[u8]) -> String {
    let mut text = source.to_string();
    for edit in bytes.chunks(3) {
        let (kind, a, b) = (edit[0], *edit.get(1).unwrap_or(&0) as usize, *edit.get(2).unwrap_or(&0) as usize);
        match kind % 6 {
            0..=2 => {
                let mut toks = tokens(&text);
                if toks.is_empty() {
                    continue;
                }
                let at = (a * 257 + b) % toks.len();
                match kind % 6 {
                    0 => {
                        toks.remove(at);
                    }
                    1 => {
                        let other = toks[(b * 31 + a) % toks.len()].clone();
                        toks[at] = other;
                    }
                    _ => toks[at] = EXTRA_TOKENS[b % EXTRA_TOKENS.len()].to_string(),
                }
                text = toks.concat();
            }
            k => {
                let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
                if lines.is_empty() {
                    continue;
                }
                let (i, j) = (a % lines.len(), b % lines.len());
                match k {
                    3 => {
                        lines.remove(i);
                    }
                    4 => {
                        let line = lines[i].clone();
                        lines.insert(j, line);
                    }
                    _ => lines.swap(i, j),
                }
                text = lines.join("\n");
                text.push('\n');
            }
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_concatenate_back_to_the_source() {
        let source = crate::generate(3).source;
        assert_eq!(tokens(&source).concat(), source);
    }

    #[test]
    fn mutations_change_the_source_deterministically() {
        let source = crate::generate(5).source;
        assert_eq!(mutate(&source, &[]), source);
        let once = mutate(&source, &[1, 40, 7, 3, 2, 9]);
        assert_ne!(once, source);
        assert_eq!(once, mutate(&source, &[1, 40, 7, 3, 2, 9]));
    }
}
