(S (NP (NN a)) (NN ") (VP (VB b)))
(S (NP (NN a)) (VP (NN ") (VB b)))
