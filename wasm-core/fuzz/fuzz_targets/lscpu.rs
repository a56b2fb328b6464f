//! libFuzzer entry for [`mmviz_engine::fuzzing::lscpu`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mmviz_engine::fuzzing::lscpu(data));
