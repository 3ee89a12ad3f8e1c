"""What `faultline verify` found, as data of the KB: the claims an entry makes about versions
(claims.py) and the records under kb/verification/ (records.py). The tool that makes the records
is app/verify/; this part only reads, checks and displays them, so the KB's readers can use it."""
