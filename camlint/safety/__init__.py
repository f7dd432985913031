"""Reading, writing and printing untrusted input safely."""
