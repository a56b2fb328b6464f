//! A per-page array that checkpoints share: fixed-size chunks behind `Rc`, so cloning the
//! state (a checkpoint) copies one pointer per chunk and the first write to a chunk after
//! that copies only that chunk (`Rc::make_mut`). `machine::page::Frames` does the same for
//! the frames; this is the generic form, for a mechanism's own per-page arrays.

use std::ops::{Index, IndexMut};
use std::rc::Rc;

/// Elements per chunk.
const CHUNK: usize = 4096;

/// A fixed-length array of `T` in shared chunks.
#[derive(Clone)]
pub struct ChunkedVec<T: Copy> {
    chunks: Vec<Rc<[T; CHUNK]>>,
    len: usize,
}

impl<T: Copy> ChunkedVec<T> {
    /// `len` copies of `fill`.
    pub fn new(len: usize, fill: T) -> Self {
        let chunk = Rc::new([fill; CHUNK]);
        // Every chunk starts as the same one: the first write to each copies it.
        ChunkedVec {
            chunks: vec![chunk; len.div_ceil(CHUNK)],
            len,
        }
    }

    /// Length.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Element `i`, if in range.
    pub fn get(&self, i: usize) -> Option<&T> {
        (i < self.len).then(|| &self.chunks[i / CHUNK][i % CHUNK])
    }

    /// Element `i` to change, if in range (its chunk is copied first if shared).
    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        (i < self.len).then(|| &mut Rc::make_mut(&mut self.chunks[i / CHUNK])[i % CHUNK])
    }

    /// Bytes of this array not shared with `other` (what a checkpoint of `self` taken
    /// after `other` costs).
    pub fn unshared_bytes(&self, other: &Self) -> usize {
        let unshared = self.chunks.iter().zip(&other.chunks).filter(|(a, b)| !Rc::ptr_eq(a, b)).count()
            + self.chunks.len().saturating_sub(other.chunks.len());
        unshared * CHUNK * std::mem::size_of::<T>()
    }
}

impl<T: Copy> Default for ChunkedVec<T> {
    fn default() -> Self {
        ChunkedVec {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T: Copy> Index<usize> for ChunkedVec<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        assert!(i < self.len, "index {i} out of range for a ChunkedVec of {}", self.len);
        &self.chunks[i / CHUNK][i % CHUNK]
    }
}

impl<T: Copy> IndexMut<usize> for ChunkedVec<T> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        assert!(i < self.len, "index {i} out of range for a ChunkedVec of {}", self.len);
        &mut Rc::make_mut(&mut self.chunks[i / CHUNK])[i % CHUNK]
    }
}

impl<T: Copy + PartialEq> PartialEq for ChunkedVec<T> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len
            && self
                .chunks
                .iter()
                .zip(&other.chunks)
                .all(|(a, b)| Rc::ptr_eq(a, b) || a[..] == b[..])
    }
}

impl<T: Copy> std::fmt::Debug for ChunkedVec<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ChunkedVec(len {}, {} chunks)", self.len, self.chunks.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clone_shares_chunks_until_one_is_written() {
        let mut a = ChunkedVec::new(10_000, 7u32);
        assert_eq!((a.len(), a[9_999], a.get(10_000)), (10_000, 7, None));
        let b = a.clone();
        assert_eq!(a.unshared_bytes(&b), 0);
        a[5_000] = 1;
        *a.get_mut(5_001).unwrap() = 2;
        assert_eq!((a[5_000], a[5_001], b[5_000]), (1, 2, 7));
        // One chunk of 4096 u32 copied.
        assert_eq!(a.unshared_bytes(&b), 4096 * 4);
        assert!(a != b);
        let mut c = b.clone();
        c[5_000] = 1;
        c[5_001] = 2;
        assert!(a == c);
    }
}
