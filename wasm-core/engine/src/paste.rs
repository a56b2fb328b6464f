//! What the importers of pasted machine output (`lscpu`, `/proc/zoneinfo`, `/proc/vmstat`)
//! share: the error that names the 1-based line, short quotes of the input for messages,
//! and the lines as people paste them (CRLF, Markdown code fences, a mail reader's `> `
//! quoting, blank lines).

use std::fmt;

/// Why a pasted text could not be read, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PasteError {
    /// 1-based line number in the text as pasted.
    pub line: usize,
    /// What is wrong and what was expected, one line.
    pub message: String,
}

impl fmt::Display for PasteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for PasteError {}

/// `Err(PasteError { line, message })`.
pub fn err<T>(line: usize, message: impl Into<String>) -> Result<T, PasteError> {
    Err(PasteError {
        line,
        message: message.into(),
    })
}

/// A piece of the input for a message: at most 60 characters, so the message stays short.
pub fn quote(s: &str) -> String {
    if s.chars().count() <= 60 {
        s.to_string()
    } else {
        format!("{}...", s.chars().take(57).collect::<String>())
    }
}

/// A value from outside (a toggle's id or value, a link's part) for a one-line message: as
/// [`quote`], with control characters (a newline, a tab, a NUL) written as escapes (`\n`).
pub fn quote_value(s: &str) -> String {
    let escaped: String = s
        .chars()
        .map(|c| {
            if c.is_control() {
                c.escape_debug().to_string()
            } else {
                c.to_string()
            }
        })
        .collect();
    quote(&escaped)
}

/// The lines worth reading, as `(1-based line, text)`: `\r` and trailing blanks removed,
/// blank lines and Markdown fences (```` ``` ````) dropped, and a mail reader's quoting
/// (`> ` at the start of every non-blank line) taken off. Leading blanks are kept (some
/// formats indent meaningfully); callers trim as they need.
pub fn lines(text: &str) -> Vec<(usize, &str)> {
    let raw: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r').trim_end()))
        .filter(|(_, l)| !l.trim().is_empty())
        .collect();
    let quoted = !raw.is_empty() && raw.iter().all(|(_, l)| l.starts_with('>'));
    raw.into_iter()
        .map(|(n, l)| {
            if quoted {
                let l = &l[1..];
                (n, l.strip_prefix(' ').unwrap_or(l))
            } else {
                (n, l)
            }
        })
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with("```"))
        .collect()
}

/// Whether `s` looks like a shell prompt with nothing after it (`$`, `user@host:~>`,
/// `[root@h ~]#`, `host%`): the next prompt left at the end of a paste.
pub fn is_bare_prompt(s: &str) -> bool {
    let s = s.trim();
    let Some(body) = s.strip_suffix(['$', '#', '>', '%']) else {
        return false;
    };
    // A user, a host, a path: nothing that looks like markup or a command.
    s.len() <= 80 && body.chars().all(|c| c.is_ascii_alphanumeric() || "@:~/._-[] ".contains(c)) && !body.contains("  ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_drop_blanks_fences_crlf_and_mail_quoting() {
        let got = lines("> a 1\r\n>\r\n> ```\r\n>   b 2  \r\n");
        assert_eq!(got, vec![(1, "a 1"), (4, "  b 2")]);
        // Not every line quoted: nothing is taken off.
        assert_eq!(lines("a 1\n> b\n"), vec![(1, "a 1"), (2, "> b")]);
    }

    #[test]
    fn prompts_and_quotes() {
        assert!(is_bare_prompt("user@host:~>"));
        assert!(is_bare_prompt("$"));
        assert!(!is_bare_prompt("pgfault 12"));
        assert!(is_bare_prompt("[root@h ~]#") && is_bare_prompt("host%"));
        assert!(!is_bare_prompt("<script>alert(1)</script>") && !is_bare_prompt("<img src=x>"));
        assert_eq!(quote(&"x".repeat(100)).chars().count(), 60);
    }
}
