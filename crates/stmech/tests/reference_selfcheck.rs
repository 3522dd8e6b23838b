//! Self-checks of the independent rigid-body reference integrator in
//! `tests/common/reference.rs`. Run with
//! `cargo test --release -p stmech --test reference_selfcheck -- --nocapture`
//! to see the recorded values.

mod common;

use common::reference::tests;

#[test]
fn tableau_order_conditions() {
    tests::tableau_order_conditions();
}

#[test]
fn quaternion_round_trip() {
    tests::quaternion_round_trip();
}

#[test]
fn torque_free_conservation() {
    tests::torque_free_conservation();
}

#[test]
fn tolerance_convergence() {
    tests::tolerance_convergence();
}

#[test]
fn analytic_principal_axis() {
    tests::analytic_principal_axis();
}

#[test]
fn published_case() {
    tests::published_case();
}

#[test]
fn constant_torque_case() {
    tests::constant_torque_case();
}
