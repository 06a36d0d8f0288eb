//! The `flexrules` command.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys::{
    mi_free, mi_malloc, mi_malloc_aligned, mi_realloc, mi_realloc_aligned, mi_zalloc,
    mi_zalloc_aligned,
};

/// The command's allocator, mimalloc (see the reason in Cargo.toml); the library leaves
/// the choice to its embedders.
struct Mimalloc;

/// The alignment every mimalloc block has: its size classes are whole words.
const WORD: usize = std::mem::size_of::<usize>();

// SAFETY: every block comes from mimalloc and goes back to it. A layout aligned to at most
// a word gets a plain block (aligned to a word at least); any other an aligned one. A
// reallocation keeps the layout's alignment by the same rule.
unsafe impl GlobalAlloc for Mimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: mimalloc's allocation functions take any size and alignment.
        unsafe {
            if layout.align() <= WORD {
                mi_malloc(layout.size()).cast()
            } else {
                mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        unsafe {
            if layout.align() <= WORD {
                mi_zalloc(layout.size()).cast()
            } else {
                mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` was allocated by mimalloc (above) and is freed once.
        unsafe { mi_free(ptr.cast::<c_void>()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` was allocated by mimalloc with `layout`'s alignment.
        unsafe {
            if layout.align() <= WORD {
                mi_realloc(ptr.cast::<c_void>(), new_size).cast()
            } else {
                mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
            }
        }
    }
}

#[global_allocator]
static ALLOCATOR: Mimalloc = Mimalloc;

fn main() -> std::process::ExitCode {
    flexrules::cli::main()
}
