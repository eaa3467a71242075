//! Test support shared by the integration tests and the case-printing example.

pub mod cases;
