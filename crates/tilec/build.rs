//! Links the `tilec` binary as a position-dependent executable on Linux. A compile is a
//! short process, so its start-up counts: a position-independent binary has thousands of
//! relative relocations that the dynamic loader applies at every start, writing (and so
//! page-faulting) the binary's relocated data pages; linked at a fixed address it has
//! none. The library and the tests are unaffected.

fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
