//! The terminal's own echo, held off while the quiz reads one line in several pieces.

/// While alive, standard input's terminal neither echoes nor gathers lines: keys that arrive
/// between two of rustyline's reads (each of which turns the terminal's raw mode on and back
/// off) wait unechoed for the next read, which shows them once. Output is untouched. Does
/// nothing when standard input is not a terminal.
pub struct Quiet {
    #[cfg(unix)]
    saved: Option<libc::termios>,
}

impl Quiet {
    pub fn stdin() -> Quiet {
        #[cfg(unix)]
        {
            // SAFETY: tcgetattr/tcsetattr on descriptor 0 with a termios we own; both only
            // read or write that struct, and failure (not a terminal) is checked.
            #[allow(unsafe_code)]
            let saved = unsafe {
                let mut t: libc::termios = std::mem::zeroed();
                if libc::tcgetattr(libc::STDIN_FILENO, &raw mut t) != 0 {
                    None
                } else {
                    let mut quiet = t;
                    quiet.c_lflag &= !(libc::ECHO | libc::ICANON);
                    (libc::tcsetattr(libc::STDIN_FILENO, libc::TCSADRAIN, &raw const quiet) == 0)
                        .then_some(t)
                }
            };
            Quiet { saved }
        }
        #[cfg(not(unix))]
        {
            Quiet {}
        }
    }
}

impl Drop for Quiet {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(t) = self.saved {
            // SAFETY: restores the termios read in `stdin`, on the same descriptor.
            #[allow(unsafe_code)]
            unsafe {
                libc::tcsetattr(libc::STDIN_FILENO, libc::TCSADRAIN, &raw const t);
            }
        }
    }
}
