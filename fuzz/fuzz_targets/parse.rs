//! The lexer and parser on arbitrary bytes: any UTF-8 input parses or yields diagnostics.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(source) = std::str::from_utf8(data) {
        let _ = tilec_syntax::parse(source);
    }
});
