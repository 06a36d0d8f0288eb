# Two seats for the same player are a wrong command line: exit status 2.
flexrules serve games/awele --port 0 --seats 0,0
