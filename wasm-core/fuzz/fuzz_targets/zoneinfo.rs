//! libFuzzer entry for [`mmviz_engine::fuzzing::zoneinfo`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mmviz_engine::fuzzing::zoneinfo(data));
